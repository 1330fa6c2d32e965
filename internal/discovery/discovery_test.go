package discovery

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
)

type capture struct{ obj runtime.Object }

func (c *capture) Object(_ http.ResponseWriter, _ *http.Request, _ int, obj runtime.Object) {
	c.obj = obj
}

// Groups and resources come in kube-apiserver's order: built-in groups by
// its priorities, then custom ones by name; resources by name.
func TestOrder(t *testing.T) {
	reg, err := registry.New(registry.DefaultRoot, registry.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	custom := func(group, version, resource string) *registry.Resource {
		return &registry.Resource{GVR: schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, Kind: "K", Custom: &registry.Custom{}}
	}
	if err := reg.SetCustom([]*registry.Resource{custom("zeta.example.com", "v1", "things"), custom("alpha.example.com", "v2", "widgets"), custom("alpha.example.com", "v1", "widgets")}); err != nil {
		t.Fatal(err)
	}
	out := &capture{}
	h, err := New(reg, out)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) runtime.Object {
		out.obj = nil
		if !h.Serve(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil)) {
			t.Fatalf("%s not served", path)
		}
		return out.obj
	}
	var groups []string
	for _, g := range get("/apis").(*metav1.APIGroupList).Groups {
		groups = append(groups, g.Name)
	}
	// The built-in groups in kube-apiserver's order, then the custom ones
	// by name.
	served := map[string]bool{}
	for _, r := range registry.Builtin() {
		served[r.GVR.Group] = true
	}
	var want []string
	for _, g := range groupOrder {
		if served[g] && g != "" {
			want = append(want, g)
		}
	}
	if len(want) != len(served)-1 {
		t.Fatalf("groupOrder lacks a built-in group: %v", served)
	}
	want = append(want, "alpha.example.com", "zeta.example.com")
	if !slices.Equal(groups, want) {
		t.Errorf("groups\n%s\nwant\n%s", strings.Join(groups, " "), strings.Join(want, " "))
	}
	alpha := get("/apis/alpha.example.com").(*metav1.APIGroup)
	if alpha.PreferredVersion.Version != "v2" || len(alpha.Versions) != 2 || alpha.Versions[1].Version != "v1" {
		t.Errorf("alpha.example.com versions %+v, preferred %+v: want v2 then v1, v2 preferred", alpha.Versions, alpha.PreferredVersion)
	}
	var names []string
	for _, r := range get("/api/v1").(*metav1.APIResourceList).APIResources {
		names = append(names, r.Name)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, "namespaces/finalize") {
		t.Errorf("core resources not by name: %s", strings.Join(names, " "))
	}
}
