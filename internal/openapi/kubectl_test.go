package openapi

import (
	"bytes"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/rest"
	explainv2 "k8s.io/kubectl/pkg/explain/v2"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// kubectlServer serves the documents over TLS on the loopback interface, as
// the server mounts them, and returns a client configuration for it.
func kubectlServer(t *testing.T, d *Documents) *rest.Config {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/openapi/v2", d.V2Handler())
	mux.Handle("/openapi/v3", d.V3Handler())
	mux.Handle("/openapi/v3/", d.V3Handler())
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}

func openAPIV3Client(t *testing.T, cfg *rest.Config) openapi.Client {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc.OpenAPIV3()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

// TestKubectlExplain renders what `kubectl explain` prints, with kubectl's
// own explain code fetching the v3 documents over HTTPS.
func TestKubectlExplain(t *testing.T) {
	client := openAPIV3Client(t, kubectlServer(t, newTestDocuments(t)))
	tests := []struct {
		name      string
		gvr       schema.GroupVersionResource
		fields    []string
		recursive bool
	}{
		{"pods.spec", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, []string{"spec"}, false},
		{"pods.spec.containers.ports", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, []string{"spec", "containers", "ports"}, false},
		{"deployment.spec.template.recursive", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, []string{"spec", "template"}, true},
		{"clusterroles", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, nil, false},
		{"configmaps.data", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, []string{"data"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := explainv2.PrintModelDescription(tt.fields, &out, client, tt.gvr, tt.recursive, 0, "plaintext"); err != nil {
				t.Fatalf("explain: %v", err)
			}
			golden(t, "explain_"+tt.name+".txt", out.Bytes())
		})
	}
}

// TestKubectlExplainCustom renders what `kubectl explain` prints for
// custom resources, from their v3 document.
func TestKubectlExplainCustom(t *testing.T) {
	client := openAPIV3Client(t, kubectlServer(t, newCustomDocuments(t, "crontab.yaml", "instance.yaml")))
	crontabs := cronTabGV.WithResource("crontabs")
	tests := []struct {
		name      string
		gvr       schema.GroupVersionResource
		fields    []string
		recursive bool
	}{
		{name: "crontabs", gvr: crontabs},
		{name: "crontabs.spec.recursive", gvr: crontabs, fields: []string{"spec"}, recursive: true},
		{name: "crontabs.spec.embedded", gvr: crontabs, fields: []string{"spec", "embedded"}},
		{name: "crontabs.v1beta1", gvr: schema.GroupVersionResource{Group: "stable.example.com", Version: "v1beta1", Resource: "crontabs"}},
		{name: "instances.spec", gvr: cronTabGV.WithResource("instances"), fields: []string{"spec"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := explainv2.PrintModelDescription(tt.fields, &out, client, tt.gvr, tt.recursive, 0, "plaintext"); err != nil {
				t.Fatalf("explain: %v", err)
			}
			golden(t, "explain_"+tt.name+".txt", out.Bytes())
		})
	}
}

// TestKubectlFieldValidationSupport runs kubectl's check of whether the
// server supports the fieldValidation query parameter, through both
// documents: a failure makes kubectl apply validate on the client side.
func TestKubectlFieldValidationSupport(t *testing.T) {
	cfg := kubectlServer(t, newCustomDocuments(t, "crontab.yaml", "instance.yaml"))
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	verifiers := map[string]resource.Verifier{
		"v3": resource.NewQueryParamVerifierV3(dyn, dc.OpenAPIV3(), resource.QueryParamFieldValidation),
		"v2": resource.NewQueryParamVerifier(dyn, dc, resource.QueryParamFieldValidation),
	}
	resources := servedResources()
	for _, cr := range customResources(t, structuralForm, "crontab.yaml", "instance.yaml") {
		resources = append(resources, cr.Resource)
	}
	for name, v := range verifiers {
		for _, r := range resources {
			if !slices.Contains(r.Verbs, "patch") {
				continue
			}
			t.Run(name+"/"+r.GVK.String(), func(t *testing.T) {
				if err := v.HasSupport(r.GVK); err != nil {
					t.Errorf("HasSupport: %v", err)
				}
			})
		}
	}
}
