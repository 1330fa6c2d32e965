// Package podresize is the PodResizeValidator admission plugin: an
// in-place resize of a pod bound to a node is refused when the node cannot
// take it.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin behind
// the InPlacePodVerticalScaling feature gate, GA and locked on since 1.35,
// so always on here. It acts on UPDATE of pods/resize only, for a pod with
// spec.nodeName set whose metadata.generation changed (the pod strategy
// bumps it when the spec changes, before admission). Then it reads the
// node and refuses, as Forbidden on the pod:
//
//   - a node that does not exist ("node %q not found") or cannot be read;
//   - a node labelled kubernetes.io/os other than linux ("pod resize is
//     only supported on linux nodes, node %q is %q"), with the status cause
//     UnsupportedPlatform;
//   - a pod whose effective cpu or memory requests (component-helpers'
//     PodRequests: containers, init containers, pod-level resources and
//     overhead) exceed the node's allocatable ("node didn't have enough
//     allocatable resources: cpu, requested: <milli>, allocatable: <milli>;
//     memory, requested: <bytes>, allocatable: <bytes>"), with the cause
//     NodeCapacity.
//
// An object that is not a pod is a BadRequest, as there. kube-apiserver's
// "not yet ready to handle request" (node informer not synced) has no
// counterpart: nodes are read from the store.
package podresize
