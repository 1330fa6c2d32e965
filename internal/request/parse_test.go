package request

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParse(t *testing.T) {
	tests := []struct {
		method, url string
		want        Info
	}{
		{"GET", "/healthz", Info{Path: "/healthz", Verb: "get"}},
		{"GET", "/api", Info{Path: "/api", Verb: "get"}},
		{"GET", "/apis/apps", Info{Path: "/apis/apps", Verb: "get"}},
		{"GET", "/api/v1", Info{Path: "/api/v1", Verb: "get", APIPrefix: "api", APIVersion: "v1"}},
		{"GET", "/apis/apps/v1", Info{Path: "/apis/apps/v1", Verb: "get", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1"}},
		{"GET", "/api/v1/pods", Info{IsResourceRequest: true, Path: "/api/v1/pods", Verb: "list", APIPrefix: "api", APIVersion: "v1", Resource: "pods"}},
		{"GET", "/api/v1/pods?watch=true", Info{IsResourceRequest: true, Path: "/api/v1/pods", Verb: "watch", APIPrefix: "api", APIVersion: "v1", Resource: "pods"}},
		{"GET", "/api/v1/namespaces/ns1/pods/p1", Info{IsResourceRequest: true, Path: "/api/v1/namespaces/ns1/pods/p1", Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "ns1", Resource: "pods", Name: "p1"}},
		{"PUT", "/api/v1/namespaces/ns1/pods/p1/status", Info{IsResourceRequest: true, Path: "/api/v1/namespaces/ns1/pods/p1/status", Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "ns1", Resource: "pods", Name: "p1", Subresource: "status"}},
		{"GET", "/api/v1/namespaces/ns1", Info{IsResourceRequest: true, Path: "/api/v1/namespaces/ns1", Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "ns1", Resource: "namespaces", Name: "ns1"}},
		{"PUT", "/api/v1/namespaces/ns1/finalize", Info{IsResourceRequest: true, Path: "/api/v1/namespaces/ns1/finalize", Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "ns1", Resource: "namespaces", Name: "ns1", Subresource: "finalize"}},
		{"DELETE", "/apis/apps/v1/namespaces/x/deployments", Info{IsResourceRequest: true, Path: "/apis/apps/v1/namespaces/x/deployments", Verb: "deletecollection", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "x", Resource: "deployments"}},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", Info{IsResourceRequest: true, Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", Verb: "create", APIPrefix: "apis", APIGroup: "rbac.authorization.k8s.io", APIVersion: "v1", Resource: "clusterroles"}},
		{"GET", "/api/v1/watch/namespaces/a/configmaps/b", Info{IsResourceRequest: true, Path: "/api/v1/watch/namespaces/a/configmaps/b", Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "a", Resource: "configmaps", Name: "b"}},
		{"GET", "/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%3Db", Info{IsResourceRequest: true, Path: "/api/v1/namespaces/a/configmaps", Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "a", Resource: "configmaps", Name: "b", FieldSelector: "metadata.name=b"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			got := Parse(httptest.NewRequest(tt.method, tt.url, nil))
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(Info{}, "Parts")); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
