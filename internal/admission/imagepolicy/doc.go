// Package imagepolicy is the ImagePolicyWebhook admission plugin: a
// remote service decides which container images pods may run, answering
// an ImageReview (imagepolicy.k8s.io/v1alpha1) for every pod created or
// updated.
//
// # Configuration
//
// The configuration is an imagePolicy stanza in YAML or JSON, without an
// apiVersion of its own, as kube-apiserver reads it (inline in an
// AdmissionConfiguration, in the file its path names, or, in the legacy
// form, as the top level of the admission configuration file itself):
//
//	imagePolicy:
//	  kubeConfigFile: /etc/portcullis/imagepolicy.kubeconfig
//	  allowTTL: 50       # seconds an allowed review is cached (default 300)
//	  denyTTL: 50        # seconds a denied review is cached (default 30)
//	  retryBackoff: 500  # milliseconds before the first retry (default 500)
//	  defaultAllow: true # admit when the webhook cannot be asked
//
// 0 asks for a default and -1 disables a cache or the wait; other values
// must lie within kube-apiserver's bounds (1s to 30m for the TTLs, up to
// 5m for the backoff). Decoding is strict: unknown and duplicate fields are
// errors, apiVersion and kind are tolerated and ignored.
//
// # The conversation
//
// The kubeconfig's current context names the webhook (cluster) and the
// credentials presented to it (user); client-go's REST client talks to it
// exactly as kube-apiserver's does, 30 seconds per attempt. The review
// lists the images of the containers then the init containers (only the
// ephemeral containers for the ephemeralcontainers subresource), the pod's
// annotations whose key holds ".image-policy.k8s.io/", and the namespace.
// A failed call is tried five times in all when the failure is worth
// retrying (a lost connection, 429, 500, 504, Retry-After), the waits
// growing by half from retryBackoff with 20% jitter.
//
// # Decisions
//
// Answers are cached by the review's spec in an LRU of 1024 entries,
// allowed ones for allowTTL and denied ones for denyTTL. The answer's
// status.auditAnnotations become audit annotations under
// imagepolicywebhook.image-policy.k8s.io/. A denial is 403: "pods "p" is
// forbidden: image policy webhook backend denied one or more images:
// <reason>". When the webhook cannot be asked, defaultAllow admits the
// pod, records the audit annotation
// imagepolicywebhook.image-policy.k8s.io/failed-open and, as
// kube-apiserver does although the plugin only validates, sets the pod's
// annotation alpha.image-policy.k8s.io/failed-open to "true"; otherwise
// the pod is refused with the client's error.
//
// Like kube-apiserver's plugin, this one validates only and asks the
// webhook for dry runs too. The clock is injected so that cache expiry and
// retry waits are tested without waiting.
package imagepolicy
