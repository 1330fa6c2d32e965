// Package serviceaccount is the ServiceAccount admission plugin
// (kube-apiserver's plugin/pkg/admission/serviceaccount): every pod runs
// as a service account that exists, and its containers get that account's
// API credentials at a known path.
//
// # Mutation (pod create)
//
// A pod without serviceAccountName gets "default" (and the deprecated
// serviceAccount alias with it, since nothing defaults after this
// plugin). The service account must exist; unless the pod or the
// account sets automountServiceAccountToken false, a projected volume
// kube-api-access-<5 random characters> (a bound token that expires after
// 3607 seconds, the kube-root-ca.crt bundle and the namespace) is added
// and mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount
// in every init container and container that has nothing mounted there.
// Ephemeral containers are left alone: a pod is created without them.
// A pod without imagePullSecrets takes the account's. Mirror pods (the
// kubernetes.io/config.mirror annotation) are never changed, only checked.
//
// # Validation
//
// On create: mirror pods may not name a service account, reference a
// secret or project a service account token; other pods need an existing
// service account, and when that account carries
// kubernetes.io/enforce-mountable-secrets: "true" the pod may reference
// only the secrets (volumes, env, envFrom) and image pull secrets the
// account lists. On an update of pods/ephemeralcontainers, the ephemeral
// containers' env and envFrom secrets are checked the same way. Other
// updates are not looked at.
//
// # Looking up the service account
//
// As kube-apiserver does, the account is read from a cache first and,
// when the cache does not have it, from storage: once for a named
// account, up to ten times 100-200ms apart for "default", which the
// service account controller may not have created yet in a new
// namespace. A missing account is refused with 403 Forbidden,
// `pods "<name>" is forbidden: error looking up service account
// <ns>/<sa>: serviceaccount "<sa>" not found`.
//
// kube-apiserver has no feature gate or configuration for this plugin in
// 1.37: its global "limit secret references" switch is always off and
// token mounting always on, so neither is an option here.
package serviceaccount
