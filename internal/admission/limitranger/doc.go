// Package limitranger is the LimitRanger admission plugin: the
// LimitRanges of a namespace give containers default requests and
// limits, and bound what pods, containers and persistent volume claims
// may ask for.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin/pkg/admission/limitranger is both a mutating
// and a validating plugin, and so is this one:
//
//   - Admit, on pod creation and on pods/resize, copies every
//     Container-type LimitRange's default (as limits) and defaultRequest
//     (as requests) into each container and init container that does not
//     set that resource, and records what it set in the pod's
//     kubernetes.io/limit-ranger annotation.
//   - Validate checks min, max and maxLimitRequestRatio of the Container
//     and Pod types against every container and the pod as a whole, and
//     min and max of the PersistentVolumeClaim type against a claim's
//     storage requests, on create and update. All violations of one
//     LimitRange are reported together (403, in the shape of
//     admission.NewForbidden); the first LimitRange that fails stops.
//
// Pod updates other than resize, other subresources, and objects whose
// stored version is being deleted are not checked, as in kube-apiserver.
//
// # What is different
//
// kube-apiserver reads LimitRanges from an informer and falls back to a
// live list when the informer holds none; here one LimitRanges function
// reads them, and the caller decides where from. kube-apiserver reports
// the violations of a LimitRange in Go map order; here resources are
// visited in name order, one of the orders kube-apiserver may give.
package limitranger
