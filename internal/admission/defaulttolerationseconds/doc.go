// Package defaulttolerationseconds is kube-apiserver's
// DefaultTolerationSeconds admission plugin (mutating only): on create and
// update of a pod (not its subresources) it adds
//
//	node.kubernetes.io/not-ready:NoExecute   Exists for --default-not-ready-toleration-seconds
//	node.kubernetes.io/unreachable:NoExecute Exists for --default-unreachable-toleration-seconds
//
// unless the pod already tolerates that taint with a NoExecute (or any)
// effect, by key or with an empty key. Both durations default to 300
// seconds in kube-apiserver; here they are New's arguments.
package defaulttolerationseconds
