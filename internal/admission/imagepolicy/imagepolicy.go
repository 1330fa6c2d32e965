package imagepolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "ImagePolicyWebhook"

// Audit annotation keys: AuditKeyPrefix before every key, the webhook's
// status.auditAnnotations included.
const (
	AuditKeyPrefix = "imagepolicywebhook.image-policy.k8s.io/"
	// FailedOpenAuditKey says the pod was admitted although the webhook
	// could not be asked.
	FailedOpenAuditKey = AuditKeyPrefix + "failed-open"
)

// FailedOpenAnnotation is set to "true" on a pod admitted although the
// webhook could not be asked; kube-apiserver still writes it into the
// stored pod.
const FailedOpenAnnotation = "alpha.image-policy.k8s.io/failed-open"

// cacheSize is how many reviews kube-apiserver remembers.
const cacheSize = 1024

// Clock is the plugin's time: expiry of cached decisions and the waits
// between attempts. clock.RealClock of k8s.io/utils satisfies it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Plugin is ImagePolicyWebhook.
type Plugin struct {
	client       *rest.RESTClient
	backoff      wait.Backoff
	clock        Clock
	cache        *cache.LRUExpireCache
	allowTTL     time.Duration
	denyTTL      time.Duration
	defaultAllow bool
}

// New decodes config (the imagePolicy stanza) and returns the plugin
// calling the webhook its kubeconfig names, keeping time with clk.
func New(config []byte, clk Clock) (*Plugin, error) {
	cfg, err := Decode(config)
	if err != nil {
		return nil, err
	}
	return NewFromConfig(cfg.ImagePolicy, clk)
}

// NewFromConfig is New for a decoded stanza, not yet normalized.
func NewFromConfig(wc WebhookConfig, clk Clock) (*Plugin, error) {
	if err := wc.Normalize(); err != nil {
		return nil, err
	}
	c, err := newRESTClient(wc.KubeConfigFile)
	if err != nil {
		return nil, err
	}
	return &Plugin{
		client:       c,
		backoff:      backoff(wc.RetryBackoff),
		clock:        clk,
		cache:        cache.NewLRUExpireCacheWithClock(cacheSize, clk),
		allowTTL:     wc.AllowTTL,
		denyTTL:      wc.DenyTTL,
		defaultAllow: wc.DefaultAllow,
	}, nil
}

// Validate implements admission.Validator: creates and updates of pods and
// of their ephemeral containers. In kube-apiserver too this is a
// validating plugin, yet on failing open it annotates the pod, which is
// stored so.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if (a.Subresource != "" && a.Subresource != "ephemeralcontainers") || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok || pod == nil {
		return apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	review := &imagepolicyv1alpha1.ImageReview{Spec: imagepolicyv1alpha1.ImageReviewSpec{
		Containers:  images(pod, a.Subresource),
		Annotations: policyAnnotations(pod.Annotations),
		Namespace:   a.Namespace,
	}}
	if err := p.review(ctx, pod, review); err != nil {
		return admission.NewForbidden(a, err)
	}
	return nil
}

// images are the images a request adds: the containers then the init
// containers of a pod, or the ephemeral containers.
func images(pod *corev1.Pod, subresource string) []imagepolicyv1alpha1.ImageReviewContainerSpec {
	var out []imagepolicyv1alpha1.ImageReviewContainerSpec
	if subresource == "ephemeralcontainers" {
		for _, c := range pod.Spec.EphemeralContainers {
			out = append(out, imagepolicyv1alpha1.ImageReviewContainerSpec{Image: c.Image})
		}
		return out
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, imagepolicyv1alpha1.ImageReviewContainerSpec{Image: c.Image})
	}
	for _, c := range pod.Spec.InitContainers {
		out = append(out, imagepolicyv1alpha1.ImageReviewContainerSpec{Image: c.Image})
	}
	return out
}

// policyAnnotations are the pod's annotations meant for the webhook: those
// with ".image-policy.k8s.io/" anywhere in the key.
func policyAnnotations(all map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range all {
		if strings.Contains(k, ".image-policy.k8s.io/") {
			out[k] = v
		}
	}
	return out
}

// review decides on the review, from the cache or the webhook.
func (p *Plugin) review(ctx context.Context, pod *corev1.Pod, review *imagepolicyv1alpha1.ImageReview) error {
	key, err := json.Marshal(review.Spec)
	if err != nil {
		return err
	}
	if cached, ok := p.cache.Get(string(key)); ok {
		review.Status = cached.(imagepolicyv1alpha1.ImageReviewStatus)
	} else {
		result := p.post(ctx, review)
		if err := result.Error(); err != nil {
			return p.failed(ctx, pod, err)
		}
		var code int
		if result.StatusCode(&code); code < 200 || code >= 300 {
			return p.failed(ctx, pod, fmt.Errorf("Error contacting webhook: %d", code))
		}
		if err := result.Into(review); err != nil {
			return p.failed(ctx, pod, err)
		}
		// A zero TTL caches nothing (kube-apiserver's entry would expire
		// at once).
		if ttl := p.ttl(review.Status); ttl > 0 {
			p.cache.Add(string(key), review.Status, ttl)
		}
	}
	if st := request.StateFrom(ctx); st != nil {
		for k, v := range review.Status.AuditAnnotations {
			// kube-apiserver drops (and logs) keys that are not a
			// qualified name with one slash.
			if key := AuditKeyPrefix + k; validAuditKey(key) {
				st.AddAnnotation(key, v)
			}
		}
	}
	if !review.Status.Allowed {
		if review.Status.Reason != "" {
			return fmt.Errorf("image policy webhook backend denied one or more images: %s", review.Status.Reason)
		}
		return errors.New("one or more images rejected by webhook backend")
	}
	return nil
}

func (p *Plugin) ttl(s imagepolicyv1alpha1.ImageReviewStatus) time.Duration {
	if s.Allowed {
		return p.allowTTL
	}
	return p.denyTTL
}

// failed decides when the webhook could not be asked: admit with the
// failed-open marks when defaultAllow, else refuse with the error.
func (p *Plugin) failed(ctx context.Context, pod *corev1.Pod, err error) error {
	if !p.defaultAllow {
		return err
	}
	if st := request.StateFrom(ctx); st != nil {
		st.AddAnnotation(FailedOpenAuditKey, "true")
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[FailedOpenAnnotation] = "true"
	return nil
}

func validAuditKey(key string) bool {
	return strings.Count(key, "/") == 1 && len(validation.IsQualifiedName(key)) == 0
}
