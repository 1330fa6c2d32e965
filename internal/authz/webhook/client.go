package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/tracing"
)

const (
	// maxResponseBytes bounds the body read from the webhook; a
	// SubjectAccessReview answer is a few hundred bytes.
	maxResponseBytes = 1 << 20
	// maxErrorBodyBytes is how much of an error answer is quoted.
	maxErrorBodyBytes = 256
)

// client POSTs reviews to one webhook.
type client struct {
	url       string
	http      *http.Client
	version   string
	userAgent string
}

// newClient loads the kubeconfig (its current context: server URL, CA,
// client credentials) and makes the HTTP client. Relative file names in
// the kubeconfig are relative to the kubeconfig file.
func newClient(kubeconfig, version string, timeout time.Duration) (*client, error) {
	if kubeconfig == "" {
		return nil, fmt.Errorf("%w: no kubeconfig file given", ErrConfig)
	}
	switch version {
	case authorizationv1.SchemeGroupVersion.Version, authorizationv1beta1.SchemeGroupVersion.Version:
	default:
		return nil, fmt.Errorf("%w: unsupported webhook authorizer version %q, supported versions are %q, %q",
			ErrConfig, version, authorizationv1.SchemeGroupVersion.Version, authorizationv1beta1.SchemeGroupVersion.Version)
	}
	raw, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%w: loading kubeconfig: %w", ErrConfig, err)
	}
	// As kube-apiserver's loader does, file names in the kubeconfig are
	// relative to the kubeconfig's directory.
	if err := clientcmd.ResolveLocalPaths(raw); err != nil {
		return nil, fmt.Errorf("%w: kubeconfig %s: %w", ErrConfig, kubeconfig, err)
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*raw, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: kubeconfig %s: %w", ErrConfig, kubeconfig, err)
	}
	u, _, err := rest.DefaultServerURL(cfg.Host, "", schema.GroupVersion{}, rest.IsConfigTransportTLS(*cfg))
	if err != nil {
		return nil, fmt.Errorf("%w: kubeconfig %s: %w", ErrConfig, kubeconfig, err)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	if timeout > 0 {
		// client-go tells the server the request's timeout, and its
		// errors quote the URL with it.
		q := u.Query()
		q.Set("timeout", timeout.String())
		u.RawQuery = q.Encode()
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: kubeconfig %s: %w", ErrConfig, kubeconfig, err)
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = "portcullis"
	}
	return &client{
		url: u.String(),
		// The timeout is per attempt, as client-go's.
		http:      &http.Client{Transport: rt, Timeout: timeout},
		version:   version,
		userAgent: ua,
	}, nil
}

// statusError is a non-2xx answer, worded as kube-apiserver's webhook
// client (client-go's rest.Result) words it.
type statusError struct {
	code       int
	retryAfter bool
	msg        string
}

func (e *statusError) Error() string { return e.msg }

// maxUnstructuredBodyBytes is how much of a plain-text error answer
// client-go quotes.
const maxUnstructuredBodyBytes = 2048

// newStatusError words a non-2xx answer as client-go does: a Status
// object the webhook sent (status Failure) speaks for itself; otherwise
// the generic text of the HTTP code, quoting a text/* body.
func newStatusError(resp *http.Response, data []byte) *statusError {
	e := &statusError{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After") != ""}
	var st metav1.Status
	if json.Unmarshal(data, &st) == nil && st.Status == metav1.StatusFailure {
		e.msg = apierrors.FromObject(&st).Error()
		return e
	}
	message := "unknown"
	if ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); strings.HasPrefix(strings.TrimSpace(strings.ToLower(ct)), "text/") {
		body := data
		if len(body) > maxUnstructuredBodyBytes {
			body = body[:maxUnstructuredBodyBytes]
		}
		message = strings.TrimSpace(string(body))
	}
	retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	e.msg = apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, retryAfter, true).Error()
	return e
}

// review sends the spec once and returns the answer's status.
func (c *client) review(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, error) {
	var none authorizationv1.SubjectAccessReviewStatus
	body, err := c.encode(spec)
	if err != nil {
		return none, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return none, fmt.Errorf("%w: %w", ErrRequest, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	// The webhook's own spans join the request's trace, if it has one.
	tracing.Propagators().Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.http.Do(req)
	if err != nil {
		// The client's error as it is (`Post "<url>": ...`), as
		// kube-apiserver reports it.
		return none, mark(ErrRequest, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return none, fmt.Errorf("%w: reading response: %w", ErrRequest, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return none, mark(ErrRequest, newStatusError(resp, data))
	}
	if len(data) > maxResponseBytes {
		return none, fmt.Errorf("%w: larger than %d bytes", ErrResponse, maxResponseBytes)
	}
	return decodeResponse(data)
}

func (c *client) encode(spec *authorizationv1.SubjectAccessReviewSpec) ([]byte, error) {
	var obj any
	if c.version == authorizationv1beta1.SchemeGroupVersion.Version {
		r := &authorizationv1beta1.SubjectAccessReview{Spec: v1beta1Spec(spec)}
		r.APIVersion = authorizationv1beta1.SchemeGroupVersion.String()
		r.Kind = "SubjectAccessReview"
		obj = r
	} else {
		r := &authorizationv1.SubjectAccessReview{Spec: *spec}
		r.APIVersion = authorizationv1.SchemeGroupVersion.String()
		r.Kind = "SubjectAccessReview"
		obj = r
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding review: %w", ErrRequest, err)
	}
	return b, nil
}

// reviewResponse is what is read of an answer: the status of
// authorization.k8s.io v1 and v1beta1 have the same shape.
type reviewResponse struct {
	APIVersion string                                    `json:"apiVersion"`
	Kind       string                                    `json:"kind"`
	Status     authorizationv1.SubjectAccessReviewStatus `json:"status"`
}

// decodeResponse reads a SubjectAccessReview answer. Unknown fields are
// ignored and apiVersion/kind may be left out, as kube-apiserver's decoder
// allows; anything else than a JSON object naming a SubjectAccessReview of
// authorization.k8s.io v1 or v1beta1 is an error.
func decodeResponse(data []byte) (authorizationv1.SubjectAccessReviewStatus, error) {
	var none authorizationv1.SubjectAccessReviewStatus
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if err := interpretKind(data); err != nil {
			return none, mark(ErrResponse, err)
		}
		return none, fmt.Errorf("%w: not a JSON object: %s", ErrResponse, quote(data))
	}
	var r reviewResponse
	if err := kjson.UnmarshalCaseSensitivePreserveInts(trimmed, &r); err != nil {
		return none, fmt.Errorf("%w: %w", ErrResponse, err)
	}
	if r.Kind != "" && r.Kind != "SubjectAccessReview" {
		return none, fmt.Errorf("%w: kind %q, want SubjectAccessReview", ErrResponse, r.Kind)
	}
	if r.APIVersion != "" {
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil || gv.Group != authorizationv1.GroupName ||
			(gv.Version != authorizationv1.SchemeGroupVersion.Version && gv.Version != authorizationv1beta1.SchemeGroupVersion.Version) {
			return none, fmt.Errorf("%w: apiVersion %q, want %s or %s", ErrResponse, r.APIVersion,
				authorizationv1.SchemeGroupVersion, authorizationv1beta1.SchemeGroupVersion)
		}
	}
	return r.Status, nil
}

// interpretKind is the first step of kube-apiserver's decoding of an
// answer (its YAML-capable JSON serializer reading apiVersion and kind),
// for its error texts: "couldn't get version/kind; json parse error: ...".
func interpretKind(data []byte) error {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	findKind := struct {
		// +optional
		APIVersion string `json:"apiVersion,omitempty"`
		// +optional
		Kind string `json:"kind,omitempty"`
	}{}
	if err := json.Unmarshal(j, &findKind); err != nil {
		return fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	return nil
}

// quote is a short, printable excerpt of a body for error messages.
func quote(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return ""
	}
	if len(s) > maxErrorBodyBytes {
		s = s[:maxErrorBodyBytes] + "..."
	}
	s = strings.ToValidUTF8(s, "?")
	return strconv.Quote(s)
}

// retryable reports whether kube-apiserver's webhook client would try
// again: a reset or lost connection, 429, 5xx other than 503, and 503
// with Retry-After.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		switch {
		case se.code == http.StatusTooManyRequests:
			return true
		case se.code == http.StatusServiceUnavailable:
			return se.retryAfter
		default:
			return se.code >= 500
		}
	}
	return utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
