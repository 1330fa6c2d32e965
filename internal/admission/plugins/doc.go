// Package plugins assembles the admission chain from the plugins
// portcullis has, in kube-apiserver's order, as --enable-admission-plugins,
// --disable-admission-plugins and --admission-control-config-file choose
// and configure them.
//
// # Order
//
// Mutating: MutatingAdmissionPolicy, then MutatingAdmissionWebhook.
// Validating: NamespaceLifecycle, NodeRestriction, ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook, then the checks of the API's own storage that
// kube-apiserver makes in its registry (the reserved .static.k8s.io names,
// RBAC escalation). Inside each policy and webhook plugin the static
// manifests of its staticManifestsDir run before the API-created
// configurations.
//
// # Feeds
//
// The API-created policies, bindings and webhook configurations reach
// their plugins through informers on the store; a policy plugin admits no
// request before its first list has arrived. Static manifests are loaded
// at start (an error stops start-up) and followed by a manifest.Watcher:
// each reload builds a whole new engine and swaps it in at once, so no
// request sees half a configuration, and a reload whose engine cannot be
// built is a failed reload that keeps the last good one.
//
// Set.Run runs the informers and watchers until its context ends.
package plugins
