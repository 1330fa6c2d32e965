// Package systempriorityclasses creates kube-apiserver's two system
// priority classes, system-node-critical and system-cluster-critical, at
// every start when they are missing, as kube-apiserver's
// scheduling/bootstrap-system-priority-classes post-start hook does. A
// class that exists is left as it is; the registry refuses their deletion
// and validation their reserved names with other values.
//
// Run creates what is missing once and returns; the server waits for it
// before it reports ready.
package systempriorityclasses
