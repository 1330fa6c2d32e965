// Package runtimeclass is kube-apiserver's RuntimeClass admission plugin,
// mutating and validating, for pod creates (not subresources) that name a
// spec.runtimeClassName.
//
// Admit copies the RuntimeClass's overhead.podFixed into spec.overhead
// (refusing a pod that brings a different overhead of its own), merges
// scheduling.nodeSelector into spec.nodeSelector (refusing a pod whose
// selector gives one of those keys another value) and merges
// scheduling.tolerations into spec.tolerations, dropping any toleration
// another one covers. Validate then checks that spec.overhead is exactly
// the class's, or absent when the class has none, so a later webhook
// cannot change it. A missing RuntimeClass is a 403 in both phases.
//
// kube-apiserver reads an informer and, on a miss, the store; New takes one
// read that the caller wires to the store, which answers both.
package runtimeclass
