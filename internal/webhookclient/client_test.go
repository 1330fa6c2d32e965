package webhookclient

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func tlsServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, []byte) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// stuck is a webhook that never answers: it holds each call until the
// caller gives up or the test ends.
func stuck(t *testing.T) http.HandlerFunc {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	return func(w http.ResponseWriter, r *http.Request) {
		// Read the body so that the server notices the client leave.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}
}

func TestPost(t *testing.T) {
	var got *http.Request
	var body string
	srv, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, body = r, string(b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	u := srv.URL + "/hook"
	c := New(nil)
	resp, err := c.Post(t.Context(), NewEndpoint(&u, nil, ca), Request{Body: []byte(`{"a":1}`), Timeout: 30 * time.Second, UserAgent: "kube-apiserver-admission"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusAccepted || string(resp.Body) != `{"ok":true}` {
		t.Errorf("answer %d %s", resp.StatusCode, resp.Body)
	}
	for k, want := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, */*", "User-Agent": "kube-apiserver-admission"} {
		if v := got.Header.Get(k); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
	// A fresh 30s bound is announced as kube-apiserver's clients do.
	if got.URL.Path != "/hook" || got.URL.RawQuery != "timeout=30s" || body != `{"a":1}` {
		t.Errorf("request %s?%s %s", got.URL.Path, got.URL.RawQuery, body)
	}
}

func TestPostErrors(t *testing.T) {
	srv, ca := tlsServer(t, stuck(t))
	good := srv.URL
	expired, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		e    *Endpoint
		is   error
		says string
	}{
		{name: "http url", e: NewEndpoint(ptr("http://127.0.0.1:1/"), nil, nil), is: ErrBadClientConfig, says: "url scheme must be https"},
		{name: "query", e: NewEndpoint(ptr(good+"/?a=b"), nil, ca), is: ErrBadClientConfig, says: "may not hold"},
		{name: "neither", e: NewEndpoint(nil, nil, nil), is: ErrBadClientConfig, says: "neither url nor service"},
		{name: "no resolver", e: NewEndpoint(nil, &Service{Namespace: "ns", Name: "svc"}, nil), is: ErrNoServiceResolver},
		{name: "bad bundle", e: NewEndpoint(&good, nil, []byte("not pem")), is: ErrBadClientConfig, says: "caBundle holds no PEM certificate"},
		// No bundle: the system's roots, which do not know httptest's.
		{name: "unknown authority", e: NewEndpoint(&good, nil, nil), says: "x509: certificate signed by unknown authority"},
		{name: "deadline", ctx: expired, e: NewEndpoint(&good, nil, ca), is: context.DeadlineExceeded, says: `Post "` + good + `": context deadline exceeded`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			_, err := New(nil).Post(ctx, tt.e, Request{Body: []byte("{}")})
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q, want it to say %q", err, tt.says)
			}
		})
	}
}

// TestTimeout: Request.Timeout ends a call the webhook never answers.
func TestTimeout(t *testing.T) {
	srv, ca := tlsServer(t, stuck(t))
	_, err := New(nil).Post(t.Context(), NewEndpoint(&srv.URL, nil, ca), Request{Body: []byte("{}"), Timeout: 50 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "?timeout=1s") {
		t.Fatalf("error %v, want the deadline, announced as 1s", err)
	}
}

func TestService(t *testing.T) {
	srv, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.URL.Path) })
	host := strings.TrimPrefix(srv.URL, "https://")
	var asked string
	res := ServiceResolverFunc(func(_ context.Context, ns, name string, port int32) (*url.URL, error) {
		asked = fmt.Sprintf("%s/%s:%d", ns, name, port)
		return &url.URL{Scheme: "https", Host: host}, nil
	})
	// httptest's certificate names example.com: the check against
	// svc.hooks.svc fails, proving the server name is the Service's.
	_, err := New(res).Post(t.Context(), NewEndpoint(nil, &Service{Namespace: "hooks", Name: "svc", Path: "/convert"}, ca), Request{})
	if err == nil || !strings.Contains(err.Error(), "svc.hooks.svc") || asked != "hooks/svc:443" {
		t.Fatalf("error %v, asked %q; want a certificate error naming svc.hooks.svc, port 443 asked", err, asked)
	}
}

type getter struct {
	svc *corev1.Service
	eps *corev1.Endpoints
}

func (g getter) GetService(context.Context, string, string) (*corev1.Service, error) {
	if g.svc == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("services"), "svc")
	}
	return g.svc, nil
}

func (g getter) GetEndpoints(context.Context, string, string) (*corev1.Endpoints, error) {
	return g.eps, nil
}

func TestEndpointsResolver(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	eps := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{
		Addresses: []corev1.EndpointAddress{{IP: "10.0.0.7"}},
		Ports:     []corev1.EndpointPort{{Name: "https", Port: 8443}},
	}}}
	ext := svc.DeepCopy()
	ext.Spec.Type, ext.Spec.ExternalName = corev1.ServiceTypeExternalName, "hooks.example.com"
	tests := []struct {
		name string
		g    getter
		port int32
		want string
		err  string
	}{
		{name: "endpoint", g: getter{svc, eps}, port: 443, want: "https://10.0.0.7:8443"},
		{name: "external name", g: getter{ext, nil}, port: 443, want: "https://hooks.example.com:443"},
		{name: "no port", g: getter{svc, eps}, port: 444, err: "service ns/svc has no port 444"},
		{name: "no endpoints", g: getter{svc, &corev1.Endpoints{}}, port: 443, err: "service ns/svc has no ready endpoints"},
		{name: "no service", g: getter{}, port: 443, err: `services "svc" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := EndpointsResolver{Get: tt.g}.ResolveEndpoint(t.Context(), "ns", "svc", tt.port)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || u.String() != tt.want {
				t.Fatalf("%v, %v; want %s", u, err, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
