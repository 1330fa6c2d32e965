package tokenwebhook

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RequestTimeout bounds each attempt: kubeconfigs cannot set a timeout,
// and kube-apiserver gives its webhook clients this one.
const RequestTimeout = 30 * time.Second

// DefaultBackoff is kube-apiserver's retry schedule for the webhook
// (--authentication-token-webhook-* has no flag for it): five attempts,
// the waits starting at 500ms and growing by half, with 20% jitter.
func DefaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// loadKubeconfig reads the kubeconfig as kube-apiserver does: only that
// file, its current context, 30 seconds per attempt and no client-side
// rate limit (the server limits what it serves, not what it asks).
func loadKubeconfig(file string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = file
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, err
	}
	cfg.Timeout = RequestTimeout
	cfg.QPS = -1
	return cfg, nil
}

// reviewer sends one TokenReview and returns the webhook's status of it.
type reviewer interface {
	review(ctx context.Context, spec authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, error)
}

// newReviewer makes the REST client for the version: TokenReviews are
// POSTed as JSON to exactly the server URL of the kubeconfig (path
// included), so any HTTPS service can answer. Using client-go's REST
// client keeps kube-apiserver's request (the timeout query parameter) and
// its error texts for every answer that is not a 2xx TokenReview.
func newReviewer(cfg *rest.Config, version string) (reviewer, error) {
	var gv schema.GroupVersion
	switch version {
	case authenticationv1.SchemeGroupVersion.Version:
		gv = authenticationv1.SchemeGroupVersion
	case authenticationv1beta1.SchemeGroupVersion.Version:
		gv = authenticationv1beta1.SchemeGroupVersion
	default:
		return nil, fmt.Errorf("unsupported authentication webhook version %q, supported versions are %q, %q",
			version, authenticationv1.SchemeGroupVersion.Version, authenticationv1beta1.SchemeGroupVersion.Version)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = runtime.ContentTypeJSON
	// client-go's scheme knows every built-in type, so an answer that is
	// a Status, or a TokenReview of another version, is read as
	// kube-apiserver reads it.
	codec := clientgoscheme.Codecs.LegacyCodec(gv)
	cfg.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	if gv == authenticationv1beta1.SchemeGroupVersion {
		return v1beta1Reviewer{c}, nil
	}
	return v1Reviewer{c}, nil
}

type v1Reviewer struct{ client *rest.RESTClient }

func (r v1Reviewer) review(ctx context.Context, spec authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, error) {
	var out authenticationv1.TokenReview
	err := r.client.Post().Body(&authenticationv1.TokenReview{Spec: spec}).Do(ctx).Into(&out)
	return out.Status, err
}

type v1beta1Reviewer struct{ client *rest.RESTClient }

func (r v1beta1Reviewer) review(ctx context.Context, spec authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, error) {
	in := &authenticationv1beta1.TokenReview{Spec: authenticationv1beta1.TokenReviewSpec{Token: spec.Token, Audiences: spec.Audiences}}
	var out authenticationv1beta1.TokenReview
	if err := r.client.Post().Body(in).Do(ctx).Into(&out); err != nil {
		return authenticationv1.TokenReviewStatus{}, err
	}
	return v1Status(&out.Status), nil
}

// v1Status is a v1beta1 status in v1: the two have the same fields.
func v1Status(in *authenticationv1beta1.TokenReviewStatus) authenticationv1.TokenReviewStatus {
	out := authenticationv1.TokenReviewStatus{
		Authenticated: in.Authenticated,
		User: authenticationv1.UserInfo{
			Username: in.User.Username,
			UID:      in.User.UID,
			Groups:   in.User.Groups,
		},
		Audiences: in.Audiences,
		Error:     in.Error,
	}
	if in.User.Extra != nil {
		out.User.Extra = make(map[string]authenticationv1.ExtraValue, len(in.User.Extra))
		for k, v := range in.User.Extra {
			out.User.Extra[k] = authenticationv1.ExtraValue(v)
		}
	}
	return out
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
