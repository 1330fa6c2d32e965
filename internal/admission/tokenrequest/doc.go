// Package tokenrequest answers POST .../serviceaccounts/<name>/token (the
// serviceaccounts/token subresource that `kubectl create token` uses): it
// runs the TokenRequest through the admission chain as kube-apiserver
// does — a CREATE of serviceaccounts/token, kind authentication.k8s.io/v1
// TokenRequest, seen by NodeRestriction, policies and webhooks alike — and
// then has the service account issuer sign the token.
//
// The warnings of the request and the audit annotation that names the
// issued credential (authentication.kubernetes.io/issued-credential-id)
// are recorded on the request state.
package tokenrequest
