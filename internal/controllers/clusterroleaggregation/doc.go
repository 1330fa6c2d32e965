// Package clusterroleaggregation keeps the rules of every ClusterRole
// with an aggregationRule equal to the union of the rules of the
// ClusterRoles its selectors pick, as kube-controller-manager's
// clusterrole-aggregation controller does (the built-in admin, edit and
// view roles are aggregated this way).
//
// An informer delivers every ClusterRole; each change wakes one loop
// that recomputes all aggregated roles from the current set and writes
// those whose rules differ. A write that conflicts is dropped: the newer
// version it lost to is on its way through the informer and wakes the
// loop again.
package clusterroleaggregation
