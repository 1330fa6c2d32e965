package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/portcullis/portcullis/internal/request"
)

func res(verb, group, resource, sub, ns, name string) *request.Info {
	return &request.Info{IsResourceRequest: true, Verb: verb, APIGroup: group, APIVersion: "v1",
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

// parsed is the Info the server derives for a request.
func parsed(method, url string) *request.Info {
	return request.Parse(httptest.NewRequest(method, url, nil))
}

func TestLabels(t *testing.T) {
	tests := []struct {
		name        string
		method, url string
		contentType string
		info        *request.Info
		wantVerb    string
		wantScope   string
		wantDryRun  string
	}{
		{"get", "GET", "/api/v1/namespaces/a/pods/p", "", res("get", "", "pods", "", "a", "p"), "GET", "resource", ""},
		{"head is get", "HEAD", "/api/v1/namespaces/a/pods/p", "", res("get", "", "pods", "", "a", "p"), "GET", "resource", ""},
		{"list namespace", "GET", "/api/v1/namespaces/a/pods", "", res("list", "", "pods", "", "a", ""), "LIST", "namespace", ""},
		{"list cluster", "GET", "/api/v1/pods", "", res("list", "", "pods", "", "", ""), "LIST", "cluster", ""},
		{"watch query", "GET", "/api/v1/pods?watch=true", "", res("watch", "", "pods", "", "", ""), "WATCH", "cluster", ""},
		{"watch legacy path", "GET", "/api/v1/watch/namespaces/a/pods", "", res("watch", "", "pods", "", "a", ""), "WATCH", "namespace", ""},
		{"watch one object", "GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp&watch=1", "", parsed("GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp&watch=1"), "WATCH", "namespace", ""},
		{"list one object", "GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp", "", parsed("GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp"), "LIST", "namespace", ""},
		{"parsed get", "GET", "/api/v1/namespaces/a/pods/p", "", parsed("GET", "/api/v1/namespaces/a/pods/p"), "GET", "resource", ""},
		{"parsed namespace", "GET", "/api/v1/namespaces/a", "", parsed("GET", "/api/v1/namespaces/a"), "GET", "resource", ""},
		{"parsed namespace status", "PUT", "/api/v1/namespaces/a/status", "", parsed("PUT", "/api/v1/namespaces/a/status"), "PUT", "resource", ""},
		{"parsed legacy watch of one object", "GET", "/api/v1/watch/namespaces/a/pods/p", "", parsed("GET", "/api/v1/watch/namespaces/a/pods/p"), "WATCH", "resource", ""},
		{"create", "POST", "/api/v1/namespaces/a/pods", "", res("create", "", "pods", "", "a", ""), "POST", "resource", ""},
		{"create cluster-scoped", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "", res("create", "rbac.authorization.k8s.io", "clusterroles", "", "", ""), "POST", "resource", ""},
		{"update", "PUT", "/apis/apps/v1/namespaces/a/deployments/d", "", res("update", "apps", "deployments", "", "a", "d"), "PUT", "resource", ""},
		{"patch", "PATCH", "/api/v1/nodes/n", "application/merge-patch+json", res("patch", "", "nodes", "", "", "n"), "PATCH", "resource", ""},
		{"apply", "PATCH", "/api/v1/nodes/n", "application/apply-patch+yaml", res("patch", "", "nodes", "", "", "n"), "APPLY", "resource", ""},
		{"delete", "DELETE", "/api/v1/namespaces/a/pods/p", "", res("delete", "", "pods", "", "a", "p"), "DELETE", "resource", ""},
		{"deletecollection", "DELETE", "/api/v1/namespaces/a/pods", "", res("deletecollection", "", "pods", "", "a", ""), "DELETE", "namespace", ""},
		{"logs are CONNECT", "GET", "/api/v1/namespaces/a/pods/p/log", "", res("get", "", "pods", "log", "a", "p"), "CONNECT", "resource", ""},
		{"exec is CONNECT", "POST", "/api/v1/namespaces/a/pods/p/exec", "", res("create", "", "pods", "exec", "a", "p"), "CONNECT", "resource", ""},
		{"status is not CONNECT", "PUT", "/api/v1/namespaces/a/pods/p/status", "", res("update", "", "pods", "status", "a", "p"), "PUT", "resource", ""},
		{"unknown method", "OPTIONS", "/api/v1/pods", "", res("", "", "pods", "", "", ""), "other", "cluster", ""},
		{"non-resource get", "GET", "/healthz", "", &request.Info{Verb: "get", Path: "/healthz"}, "GET", "", ""},
		{"non-resource post", "POST", "/logs", "", &request.Info{Verb: "post", Path: "/logs"}, "POST", "", ""},
		{"dry run", "POST", "/api/v1/namespaces/a/pods?dryRun=All", "", res("create", "", "pods", "", "a", ""), "POST", "resource", "All"},
		{"dry run repeated", "POST", "/api/v1/namespaces/a/pods?dryRun=All&dryRun=All", "", res("create", "", "pods", "", "a", ""), "POST", "resource", "All"},
		{"dry run invalid", "POST", "/api/v1/namespaces/a/pods?dryRun=true", "", res("create", "", "pods", "", "a", ""), "POST", "resource", "invalid"},
		{"dry run empty", "POST", "/api/v1/namespaces/a/pods?dryRun=", "", res("create", "", "pods", "", "a", ""), "POST", "resource", "invalid"},
		{"dryRun only in a value", "GET", "/api/v1/pods?labelSelector=dryRun", "", res("list", "", "pods", "", "", ""), "LIST", "cluster", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			sc := scope(tt.info)
			if sc != tt.wantScope {
				t.Errorf("scope = %q, want %q", sc, tt.wantScope)
			}
			if got := reportedVerb(req, tt.info, sc); got != tt.wantVerb {
				t.Errorf("verb = %q, want %q", got, tt.wantVerb)
			}
			if got := dryRun(req); got != tt.wantDryRun {
				t.Errorf("dry_run = %q, want %q", got, tt.wantDryRun)
			}
		})
	}
}

func TestCodeLabel(t *testing.T) {
	for code, want := range map[int]string{200: "200", 101: "101", 429: "429", 599: "599", 600: "600", 42: "42"} {
		if got := codeLabel(code); got != want {
			t.Errorf("codeLabel(%d) = %q", code, got)
		}
	}
	if codeLabel(http.StatusOK) != "200" {
		t.Error("200")
	}
}
