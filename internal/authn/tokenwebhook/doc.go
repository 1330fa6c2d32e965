// Package tokenwebhook is the webhook token authenticator: it asks a
// remote service who a bearer token belongs to by POSTing a TokenReview
// (authentication.k8s.io v1 or v1beta1) to the server a kubeconfig file
// names, as kube-apiserver's --authentication-token-webhook-config-file,
// --authentication-token-webhook-version and
// --authentication-token-webhook-cache-ttl do.
//
// # The conversation
//
// The review carries spec.token and spec.audiences: the audiences the
// request asks for (a TokenReview's), or else the server's own. The
// webhook's answer decides: with audiences asked for, it must share one
// with them (from status.audiences, or the server's own when it names
// none), or the token is not recognised; then status.authenticated gives
// the user (username, uid, groups, extra) and the audiences shared, and
// its absence rejects the token, with status.error as the error when the
// webhook gave one.
//
// The kubeconfig's current context supplies the server URL (path
// included: reviews go to exactly that URL), its CA and the client
// credentials, read by client-go as kube-apiserver reads them, and the
// review travels over client-go's REST client, so requests and error
// texts are kube-apiserver's. Each attempt has RequestTimeout, and one
// that runs out is not tried again; lost connections, 429, 5xx answers
// other than a bare 503, and answers with Retry-After are, with
// kube-apiserver's backoff (DefaultBackoff: five attempts). client-go
// itself also honours a Retry-After on 429 and 5xx answers, as it does in
// kube-apiserver. When the webhook cannot answer, the token is not
// authenticated and the last attempt's error is returned.
//
// # Cache
//
// Answers are kept for CacheTTL, keyed by the token and the audiences
// asked for: authenticated and unauthenticated ones alike, errors never.
// Concurrent callers with one key share one call to the webhook, which
// runs detached from them for at most 30 seconds, so that a caller giving
// up does not fail the others. The cache records kube-apiserver's
// authentication_token_cache_* metrics.
package tokenwebhook
