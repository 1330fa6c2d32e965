// Package serviceaccount issues and verifies Kubernetes service account
// tokens in kube-apiserver's formats, so that kubelets, client-go and
// external relying parties (OIDC federation) accept ours and we accept
// theirs.
//
// # Keys
//
// LoadOrGenerateKeys reads --service-account-signing-key-file and
// --service-account-key-file with kube-apiserver's parsing rules, or
// generates <data-dir>/pki/sa.key and sa.pub on first start. Key IDs are
// derived from the public key as kube-apiserver derives them, so tokens
// signed by either server verify on the other with the same key.
//
// # Issuing
//
// An Issuer signs bound tokens (Issue) and, for a tokens controller,
// legacy secret-based tokens (IssueLegacy). TokenRequests implements the
// serviceaccounts/token subresource around it: defaulting, validation,
// lookups of the service account and the bound object, the expiration
// cap and extension, and the response object.
//
// # Verifying
//
// An Authenticator is an authn.Token. It only claims tokens whose
// unverified "iss" is one of ours, so it can sit in a union beside JWT
// authenticators for other issuers; it then checks signature, issuer,
// audience, time (with kube-apiserver's one-minute leeway) and, through a
// Getter, that the service account and the bound object still exist with
// the same UID.
package serviceaccount
