// Package apiservices keeps one APIService per group version served, as
// kube-apiserver's autoregistration does: the built-in group versions
// (labelled kube-aggregator.kubernetes.io/automanaged=onstart) with
// kube-apiserver's group and version priorities, and those of
// CustomResourceDefinitions (automanaged=true), which go when their
// definition does.
package apiservices
