// Package podnodeselector is kube-apiserver's PodNodeSelector admission
// plugin, mutating and validating, for pod creates (not subresources).
//
// # Selectors
//
// A namespace's node selector is its scheduler.alpha.kubernetes.io/node-selector
// annotation, a selector of equality terms ("env=prod,tier=web"); without
// the annotation it is the configuration's clusterDefaultNodeSelector (an
// empty annotation opts a namespace out of the default). Admit merges the
// namespace's selector into the pod's spec.nodeSelector, refusing with 403
// a pod that gives one of its keys another value. Both phases then check
// the pod's selector against the namespace's whitelist in the
// configuration, if any: every key=value of the pod must be in it.
//
// # Configuration
//
// The file (the AdmissionConfiguration's configuration or path) is what
// kube-apiserver reads:
//
//	podNodeSelectorPluginConfig:
//	  clusterDefaultNodeSelector: env=prod
//	  team-a: env=prod,team=a
//
// with namespace names as keys for whitelists. kube-apiserver has no
// versioned type for it (no apiVersion or kind) and decodes it leniently,
// ignoring what it does not understand and failing only when a request
// reaches a malformed selector; here the file is decoded strictly and
// every selector is parsed by New, so a bad file stops the server instead.
//
// kube-apiserver reads namespaces from an informer and, on a miss, from the
// store; New takes one read that the caller wires to the store.
package podnodeselector
