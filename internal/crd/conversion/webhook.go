package conversion

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

// DefaultTimeout bounds each call, as kube-apiserver's webhook clients do.
const DefaultTimeout = 30 * time.Second

// userAgent is what kube-apiserver's webhook clients say they are.
const userAgent = "kube-apiserver-admission"

// Poster posts a review to a webhook; *webhookclient.Client implements it.
type Poster interface {
	Post(ctx context.Context, e *webhookclient.Endpoint, r webhookclient.Request) (*webhookclient.Response, error)
}

// Options are what a Webhook needs besides its CRD.
type Options struct {
	// Client posts the reviews.
	Client Poster
	// Timeout bounds each call within the caller's deadline; zero is
	// DefaultTimeout.
	Timeout time.Duration
}

// Webhook is the conversion webhook of one CRD.
type Webhook struct {
	endpoint *webhookclient.Endpoint
	versions []string
	client   Poster
	timeout  time.Duration
}

// ErrNoWebhook reports a CRD whose conversion has no webhook to call.
var ErrNoWebhook = errors.New("conversion strategy Webhook without spec.conversion.webhook.clientConfig")

// New returns the conversion webhook of crd, whose conversion strategy is
// Webhook.
func New(crd *apiextensionsv1.CustomResourceDefinition, opts Options) (*Webhook, error) {
	c := crd.Spec.Conversion
	if c == nil || c.Webhook == nil || c.Webhook.ClientConfig == nil {
		return nil, fmt.Errorf("crd %s: %w", crd.Name, ErrNoWebhook)
	}
	if opts.Client == nil {
		return nil, errors.New("conversion: no client")
	}
	cc := c.Webhook.ClientConfig
	caBundle := cc.CABundle
	if len(bytes.TrimSpace(caBundle)) == 0 {
		// kube-apiserver treats a blank bundle as none: the system roots.
		caBundle = nil
	}
	var svc *webhookclient.Service
	if s := cc.Service; s != nil {
		svc = webhookclient.NewService(s.Namespace, s.Name, s.Path, s.Port)
	}
	w := &Webhook{
		endpoint: webhookclient.NewEndpoint(cc.URL, svc, caBundle),
		versions: c.Webhook.ConversionReviewVersions,
		client:   opts.Client,
		timeout:  opts.Timeout,
	}
	if w.timeout <= 0 {
		w.timeout = DefaultTimeout
	}
	return w, nil
}

// Convert converts objs in place to version to of their group, sending
// those not in it already in one review. It returns nil when every
// object is converted; otherwise one error per object, nil for those
// converted (the others are unchanged).
func (w *Webhook) Convert(ctx context.Context, objs []*unstructured.Unstructured, to schema.GroupVersion) []error {
	var send []int
	for i, o := range objs {
		if o.GetAPIVersion() != to.String() {
			send = append(send, i)
		}
	}
	if len(send) == 0 {
		return nil
	}
	errs := make([]error, len(objs))
	failAll := func(f func(o *unstructured.Unstructured) error) []error {
		for _, i := range send {
			errs[i] = f(objs[i])
		}
		return errs
	}
	sent := make([]*unstructured.Unstructured, len(send))
	for j, i := range send {
		sent[j] = objs[i]
	}
	uid := uuid.NewUUID()
	version, body, err := encodeReview(w.versions, sent, to, uid)
	if errors.Is(err, errNoReviewVersion) {
		// kube-apiserver says this without naming the object.
		return failAll(func(*unstructured.Unstructured) error { return err })
	}
	var converted []runtime.RawExtension
	if err == nil {
		var resp *webhookclient.Response
		resp, err = w.client.Post(ctx, w.endpoint, webhookclient.Request{Body: body, Timeout: w.timeout, UserAgent: userAgent})
		if err == nil {
			converted, err = decodeResponse(resp, version, uid)
		}
	}
	if err != nil {
		return failAll(func(o *unstructured.Unstructured) error {
			return &Error{msg: fmt.Sprintf("conversion webhook for %v failed: %v", o.GroupVersionKind(), err), err: err}
		})
	}
	if len(converted) != len(sent) {
		return failAll(func(o *unstructured.Unstructured) error {
			return &Error{msg: fmt.Sprintf("conversion webhook for %v returned %d objects, expected %d", o.GroupVersionKind(), len(converted), len(sent))}
		})
	}
	failed := false
	for j, i := range send {
		out, err := accept(objs[i], converted[j], to, j)
		if err != nil {
			errs[i], failed = err, true
			continue
		}
		objs[i].Object = out.Object
	}
	if !failed {
		return nil
	}
	return errs
}

// Error is the failure to convert one object, in kube-apiserver's words.
type Error struct {
	msg string
	err error
}

func (e *Error) Error() string { return e.msg }

// Unwrap returns the cause: the call's error, or nil.
func (e *Error) Unwrap() error { return e.err }
