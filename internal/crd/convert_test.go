package crd

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/registry"
)

// gadgetsCRD has two versions of different shapes, converted by the
// webhook at URL (CA its bundle): v1 spec.size is a string, v2
// spec.sizeInt an integer; v1 is stored.
const gadgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {url: "URL", caBundle: CA}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: string}}}}}}
  - name: v2
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {sizeInt: {type: integer}}}}}}
status:
  acceptedNames: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  storedVersions: [v1]
  conditions:
  - {type: NamesAccepted, status: "True", reason: NoConflicts, message: no conflicts found}
  - {type: Established, status: "True", reason: InitialNamesAccepted, message: the initial names have been accepted}
`

// gadgetHook converts gadgets and adds a field no schema knows; it
// counts its calls.
func gadgetHook(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var review apiextensionsv1.ConversionReview
		if err := json.Unmarshal(body, &review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var out []any
		for _, raw := range review.Request.Objects {
			var obj map[string]any
			_ = json.Unmarshal(raw.Raw, &obj)
			obj["apiVersion"] = review.Request.DesiredAPIVersion
			spec := obj["spec"].(map[string]any)
			if s, ok := spec["size"].(string); ok {
				spec["sizeInt"], _ = strconv.Atoi(s)
				delete(spec, "size")
			} else if n, ok := spec["sizeInt"].(float64); ok {
				spec["size"] = strconv.Itoa(int(n))
				delete(spec, "sizeInt")
			}
			spec["unknown"] = "pruned"
			out = append(out, obj)
		}
		review.Response = &apiextensionsv1.ConversionResponse{UID: review.Request.UID}
		review.Response.Result.Status = "Success"
		for _, o := range out {
			data, _ := json.Marshal(o)
			review.Response.ConvertedObjects = append(review.Response.ConvertedObjects, runtime.RawExtension{Raw: data})
		}
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func gadgetResources(t *testing.T, srv *httptest.Server) map[string]*registry.Resource {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	doc := strings.NewReplacer("URL", srv.URL+"/convert", "CA", base64.StdEncoding.EncodeToString(ca)).Replace(gadgetsCRD)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
		t.Fatal(err)
	}
	resources, err := Resources(crd)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*registry.Resource{}
	for _, r := range resources {
		out[r.GVR.Version] = r
	}
	return out
}

func gadget(version, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/" + version, "kind": "Gadget",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "uid-" + name},
		"spec":     spec,
	}}
}

// TestWebhookConversion: the storage codec's conversions go through the
// webhook, a list in one call, and what the webhook adds that the target
// version does not know is pruned, as kube-apiserver's codec prunes it.
func TestWebhookConversion(t *testing.T) {
	srv, calls := gadgetHook(t)
	res := gadgetResources(t, srv)["v2"]
	objs := []*unstructured.Unstructured{
		gadget("v1", "a", map[string]any{"size": "3"}),
		gadget("v2", "b", map[string]any{"sizeInt": int64(4)}),
		gadget("v1", "c", map[string]any{"size": "5"}),
	}
	if errs := res.Custom.ConvertList(t.Context(), objs, "v2"); errs != nil {
		t.Fatal(errs)
	}
	for i, want := range []int64{3, 4, 5} {
		if diff := cmp.Diff(gadget("v2", objs[i].GetName(), map[string]any{"sizeInt": want}).Object, objs[i].Object); diff != "" {
			t.Errorf("%s (-want +got):\n%s", objs[i].GetName(), diff)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d webhook calls for a list, want 1", n)
	}
	one := gadget("v2", "d", map[string]any{"sizeInt": int64(6)})
	if err := res.Custom.Convert(t.Context(), one, "v1"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gadget("v1", "d", map[string]any{"size": "6"}).Object, one.Object); diff != "" {
		t.Errorf("to the storage version (-want +got):\n%s", diff)
	}
}

func TestConverterRefuses(t *testing.T) {
	srv, calls := gadgetHook(t)
	res := gadgetResources(t, srv)["v1"]
	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		version string
		want    string
	}{
		{name: "unknown target", obj: gadget("v1", "a", map[string]any{}), version: "v9",
			want: "request to convert CR to an invalid group/version: example.com/v9"},
		{name: "unknown source", obj: gadget("v0", "a", map[string]any{}), version: "v2",
			want: "request to convert CR from an invalid group/version: example.com/v0"},
		{name: "other group", obj: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "other.com/v1", "kind": "Gadget", "metadata": map[string]any{}}}, version: "v2",
			want: "request to convert CR from an invalid group/version: other.com/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := res.Custom.Convert(t.Context(), tt.obj, tt.version)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// Nothing but apiVersion and kind converts without the webhook.
	bare := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget"}}
	if err := res.Custom.Convert(t.Context(), bare, "v2"); err != nil || bare.GetAPIVersion() != "example.com/v2" {
		t.Errorf("bare object: %v, %v", bare.Object, err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d webhook calls, want none", n)
	}
}
