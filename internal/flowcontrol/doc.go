// Package flowcontrol holds the API Priority and Fairness configuration
// kube-apiserver creates in every cluster: the mandatory FlowSchemas and
// PriorityLevelConfigurations (exempt, catch-all), whose specs no client may
// change, and the suggested ones, which a client may take over. Validation
// reads the mandatory specs; the bootstrap controller creates and updates
// the objects.
package flowcontrol
