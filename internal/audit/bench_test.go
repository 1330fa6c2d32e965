package audit

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

// BenchmarkMiddleware measures the audit cost per request: a request the
// policy does not audit, and one logged at Metadata to a file.
func BenchmarkMiddleware(b *testing.B) {
	p := mustParse(b, policyHead+`rules:
- level: None
  nonResourceURLs: [/healthz*]
- level: None
  users: [system:kube-proxy]
  verbs: [watch]
- level: Metadata
`)
	l, err := NewLogger(LogConfig{Path: filepath.Join(b.TempDir(), "audit.log")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }), l, p)
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	for _, bc := range []struct {
		name string
		info *request.Info
		path string
	}{
		{"None", nonResourceInfo("get", "/healthz"), "/healthz"},
		{"Metadata", resourceInfo("get", "", "pods", "", "default", "web"), "/api/v1/namespaces/default/pods/web"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bc.path, nil)
			req = req.WithContext(request.WithState(req.Context(), &request.State{Info: bc.info, User: alice, AuditID: "a-1"}))
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, req)
			}
		})
	}
}
