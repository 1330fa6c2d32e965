// Package tolerations holds the toleration arithmetic that more than one
// built-in admission plugin shares (RuntimeClass, PodTolerationRestriction),
// with kube-apiserver's semantics: when one toleration tolerates every
// taint another does (a superset), and merging and whitelisting by it.
package tolerations
