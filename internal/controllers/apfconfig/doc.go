// Package apfconfig keeps API Priority and Fairness's configuration objects
// as kube-apiserver does: at start and then every minute it creates the
// mandatory and suggested FlowSchemas and PriorityLevelConfigurations that
// are missing, brings back the specs of the mandatory ones and of the
// suggested ones still marked for automatic update
// (apf.kubernetes.io/autoupdate-spec), and deletes objects so marked that
// are no longer suggested; and it keeps each FlowSchema's Dangling
// condition, which says whether the priority level it names exists.
package apfconfig
