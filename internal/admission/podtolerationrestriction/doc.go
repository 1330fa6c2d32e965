// Package podtolerationrestriction is kube-apiserver's
// PodTolerationRestriction admission plugin, mutating and validating, for
// pod creates and updates (not subresources).
//
// # Defaults and whitelists
//
// On create the pod's tolerations are merged with its namespace's
// scheduler.alpha.kubernetes.io/defaultTolerations annotation (a JSON list
// of tolerations), or, without that annotation, the configuration's
// default; on create and update a pod that is not BestEffort also gets
// node.kubernetes.io/memory-pressure:NoSchedule Exists. Merging drops any
// toleration another covers. Both phases then require every toleration of
// the pod to be covered by one of the namespace's
// scheduler.alpha.kubernetes.io/tolerationsWhitelist annotation or,
// without it, the configuration's whitelist; an empty whitelist allows
// everything, and an empty annotation value means "none" (no defaults, no
// restriction) rather than "fall back to the cluster's".
//
// As in kube-apiserver, a whitelist refusal is a plain error (a 500 without
// a reason), a malformed annotation is a 500 with the JSON error, and a
// missing namespace is the namespace's 404.
//
// # Configuration
//
// The file is kube-apiserver's
//
//	apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
//	kind: Configuration
//	default: [tolerations]
//	whitelist: [tolerations]
//
// decoded strictly (kube-apiserver's decoder ignores unknown fields) and
// validated as kube-apiserver validates it, with pod toleration rules
// (Lt and Gt not allowed). No file is an empty configuration.
//
// # QoS
//
// BestEffort is judged as kube-apiserver 1.37 does with its default gates
// (PodLevelResources and PodLevelResourcesFixKubeletQOSClass on):
// status.qosClass if set, else pod-level cpu, memory or hugepages
// resources when the pod has any, else the containers' cpu and memory.
package podtolerationrestriction
