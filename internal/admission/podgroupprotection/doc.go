// Package podgroupprotection is the PodGroupProtection admission plugin:
// every PodGroup is created with the scheduling.k8s.io/podgroup-protection
// finalizer, so that it cannot disappear while pods still reference it.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a mutating plugin that acts
// on CREATE of scheduling.k8s.io podgroups (no subresource), in every
// served version (v1beta1, v1alpha3), and only with the GenericWorkload
// feature gate on. That gate is beta but off by default in 1.37, so by
// default the plugin exists by name and does nothing; New takes the gate's
// value. The finalizer is appended after the client's, never twice. The
// controller that removes it once no pod uses the PodGroup is not part of
// this package.
package podgroupprotection
