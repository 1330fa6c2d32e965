// Package authzconfig turns kube-apiserver's authorization configuration
// into the chain of authorizers that decides every request.
//
// # Two sources
//
// --authorization-config names a file holding an AuthorizationConfiguration
// (apiserver.config.k8s.io v1, v1beta1 or v1alpha1, YAML or JSON). Parse
// and Load decode it strictly (unknown and duplicate fields are errors),
// apply the published defaults (authorizedTTL 5m, unauthorizedTTL 30s,
// both caches on) and validate it with kube-apiserver's rules, reporting
// every problem with its field path; match conditions are compiled here,
// once.
//
// The legacy flags --authorization-mode and --authorization-webhook-* are
// converted by FromFlags into the same Config, as kube-apiserver does (one
// webhook named "default", timeout 30s, failure policy NoOpinion). The two
// sources are mutually exclusive (ErrFlagsExclusive).
//
// # The chain
//
// Build makes the ordered chain: first kube-apiserver's system:masters
// rule, then each configured authorizer in order. Each is asked in turn
// until one allows or denies; if none does, the chain answers NoOpinion
// with every reason ("name: reason") and error, and the server refuses the
// request. RBAC and Node authorizers are supplied by the server (Deps) and
// reused as they are; AlwaysAllow, AlwaysDeny and webhooks are made here.
// Every decision is counted in apiserver_authorization_decisions_total.
//
// # Reload
//
// A Controller serves the chain built from a file and, while Run runs,
// watches the file with a configfile.Watcher (fsnotify on its directory,
// plus a poll every minute).
// New content (by hash) is decoded, validated and built; only a fully
// built chain replaces the current one, atomically, so a bad edit keeps
// the last good configuration. The set of non-webhook authorizers is fixed
// at start-up: a reload may reorder them and change webhooks, but not add
// or remove RBAC or Node. Outcomes are counted in the
// apiserver_authorization_config_controller_* metrics.
package authzconfig
