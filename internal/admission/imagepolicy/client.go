package imagepolicy

import (
	"context"
	"fmt"
	"time"

	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// requestTimeout bounds each attempt, as kube-apiserver's webhook clients.
const requestTimeout = 30 * time.Second

// newRESTClient builds the client of the webhook the kubeconfig names, as
// kube-apiserver builds it: the kubeconfig's current context read by
// client-go (file names in it are relative to the kubeconfig), 30 seconds
// per attempt, no client-side rate limit, and ImageReviews sent and read
// as imagepolicy.k8s.io/v1alpha1 JSON. Using client-go's REST client keeps
// kube-apiserver's request (the timeout query parameter, content
// negotiation) and its error texts for every answer that is not a 2xx.
func newRESTClient(kubeconfig string) (*rest.RESTClient, error) {
	if kubeconfig == "" {
		return nil, fmt.Errorf("%w: imagePolicy.kubeConfigFile is required", ErrConfig)
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	cfg.Timeout = requestTimeout
	cfg.QPS = -1
	cfg.ContentType = runtime.ContentTypeJSON
	codec, err := newReviewCodec()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	cfg.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c, nil
}

// newReviewCodec encodes ImageReviews as v1alpha1 and decodes answers
// into them; a Status in a 2xx answer decodes as such, so that a failure
// Status is an error.
func newReviewCodec() (runtime.Codec, error) {
	s := runtime.NewScheme()
	if err := imagepolicyv1alpha1.AddToScheme(s); err != nil {
		return nil, err
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(s).LegacyCodec(imagepolicyv1alpha1.SchemeGroupVersion), nil
}

// backoff is kube-apiserver's retry schedule for the webhook: five
// attempts, the waits growing by half from initial, with 20% jitter.
func backoff(initial time.Duration) wait.Backoff {
	return wait.Backoff{Duration: initial, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// retryable reports whether kube-apiserver's webhook client tries a failed
// call again: a lost connection, or an answer saying the server failed,
// timed out, is overloaded or asks to be called later.
func retryable(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, later := apierrors.SuggestsClientDelay(err)
	return later
}

// post sends the review until an attempt succeeds, fails for good or the
// attempts run out, and returns the last attempt's result (the zero
// result when ctx ended before the first).
func (p *Plugin) post(ctx context.Context, review *imagepolicyv1alpha1.ImageReview) rest.Result {
	var result rest.Result
	b := p.backoff
	for b.Steps > 0 {
		if ctx.Err() != nil {
			return result
		}
		result = p.client.Post().Body(review).Do(ctx)
		if err := result.Error(); err == nil || !retryable(err) || b.Steps == 1 {
			return result
		}
		select {
		case <-ctx.Done():
			return result
		case <-p.clock.After(b.Step()):
		}
	}
	return result
}
