// Package nodetaint is kube-apiserver's TaintNodesByCondition admission
// plugin (mutating only): a node created through the API (not a
// subresource) gets the node.kubernetes.io/not-ready:NoSchedule taint
// unless it has a taint of that key and effect already, so that nothing is
// scheduled to it before the node controller has seen it Ready and removed
// the taint.
package nodetaint
