// Package webhook is the Webhook authorizer: it asks a remote service
// whether a request is allowed by POSTing a SubjectAccessReview
// (authorization.k8s.io v1 or v1beta1) to the server that a kubeconfig
// file names, as kube-apiserver's --authorization-webhook-config-file and
// the Webhook entries of an AuthorizationConfiguration do.
//
// # The conversation
//
// The review is built from the request attributes exactly as
// kube-apiserver builds it: user, uid, groups and extra, and either
// resourceAttributes (with field and label selector requirements when the
// request has them) or nonResourceAttributes. The answer's status.denied
// denies, status.allowed allows, neither is no opinion; both at once
// denies with an error. The reason is passed on.
//
// The kubeconfig supplies the server URL, its CA and the client
// credentials (certificates, bearer tokens, exec plugins), loaded with
// client-go. Every attempt has the configured timeout; connection resets,
// 429 and 5xx answers are retried with kube-apiserver's backoff. The
// response body is read up to a fixed limit and decoded leniently (unknown
// fields are ignored, a missing apiVersion/kind is accepted) but a
// response that is not a SubjectAccessReview is an error.
//
// # Failure policy, cache, match conditions
//
// When the webhook cannot be reached or answers garbage, the decision is
// the failure policy's: NoOpinion (the next authorizer is asked, counted in
// apiserver_authorization_webhook_evaluations_fail_open_total) or Deny.
//
// Decisions are cached, keyed by the whole review spec: allowed ones for
// AuthorizedTTL, the others for UnauthorizedTTL; a zero TTL disables that
// half of the cache. Requests whose attributes are unusually large are
// never cached.
//
// Match conditions are CEL expressions over `request` (the v1
// SubjectAccessReview spec, declared on internal/cel's base), compiled
// once by CompileMatchConditions. Any false skips the webhook (no
// opinion); otherwise any error applies the failure policy; all true
// calls it.
package webhook
