package tracing

import (
	"bytes"
	"context"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/tracing/tracingtest"
)

// withState stands in for the server's request-state and authentication
// filters, which run before tracing.
func withState(next http.Handler, u user.Info, info *request.Info) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &request.State{Info: info, User: u, AuditID: "audit-1"}
		next.ServeHTTP(w, r.WithContext(request.WithState(r.Context(), st)))
	})
}

func TestMiddleware(t *testing.T) {
	col, err := tracingtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer col.Stop()
	p, err := New(context.Background(), &Config{Endpoint: col.Addr, SamplingRatePerMillion: maxRatePerMillion}, "portcullis-test")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())

	const parentTrace, parentSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	traceparent := "00-" + parentTrace + "-" + parentSpan + "-01"
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	pod := &request.Info{IsResourceRequest: true, APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: "p", Verb: "get"}
	deploy := &request.Info{IsResourceRequest: true, APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Resource: "deployments", Subresource: "", Verb: "list"}
	tests := []struct {
		name, target, traceparent string
		user                      user.Info
		info                      *request.Info
		wantName                  string
		joins                     bool // continues the caller's trace
	}{
		{"privileged caller joins the trace", "/api/v1/namespaces/default/pods/p", traceparent, admin, pod, "GET /api/v1/namespaces/{:namespace}/pods/{:name}", true},
		{"unprivileged caller starts a linked trace", "/api/v1/namespaces/default/pods/p", traceparent, bob, pod, "GET /api/v1/namespaces/{:namespace}/pods/{:name}", false},
		{"cluster-wide list", "/apis/apps/v1/deployments?limit=5", "", admin, deploy, "GET /apis/apps/v1/deployments", false},
		{"non-resource request", "/healthz", "", admin, &request.Info{Path: "/healthz", Verb: "get"}, "GET", false},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.target, nil)
			if tt.traceparent != "" {
				r.Header.Set("traceparent", tt.traceparent)
			}
			withState(Middleware(h, p.TracerProvider()), tt.user, tt.info).ServeHTTP(httptest.NewRecorder(), r)
			if err := p.ForceFlush(context.Background()); err != nil {
				t.Fatal(err)
			}
			s := lastSpan(t, col, tt.target)
			if s.Name != tt.wantName {
				t.Errorf("span name %q, want %q", s.Name, tt.wantName)
			}
			if s.Attributes["audit-id"] != "audit-1" || s.Resource["service.name"] != "apiserver" || s.Resource["service.instance.id"] != "portcullis-test" {
				t.Errorf("attributes %v, resource %v", s.Attributes, s.Resource)
			}
			joined := hex.EncodeToString(s.TraceID) == parentTrace && hex.EncodeToString(s.ParentSpanID) == parentSpan
			if joined != tt.joins {
				t.Errorf("joined the caller's trace = %v, want %v", joined, tt.joins)
			}
			if tt.traceparent != "" && !tt.joins && s.Links != 1 {
				t.Errorf("a new trace for an unprivileged caller has %d links, want 1", s.Links)
			}
		})
	}
}

// lastSpan waits for the span of target.
func lastSpan(t *testing.T, col *tracingtest.Collector, target string) tracingtest.Span {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		spans, changed := col.Spans()
		for i := len(spans) - 1; i >= 0; i-- {
			if spans[i].Attributes["http.target"] == target {
				return spans[i]
			}
		}
		select {
		case <-changed:
		case <-deadline:
			var names bytes.Buffer
			for _, s := range spans {
				names.WriteString(s.Name + " " + s.Attributes["http.target"] + "\n")
			}
			t.Fatalf("no span for %s; got:\n%s", target, names.String())
		}
	}
}
