package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestCustomGoldens keeps what the sample custom resources publish: the
// whole v3 document of their group-version, and their v2 definitions.
// TestCustom*MatchesKubeAPIServer compares them with kube-apiserver's.
func TestCustomGoldens(t *testing.T) {
	d := newCustomDocuments(t, "crontab.yaml", "instance.yaml")
	b, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("v3", func(t *testing.T) {
		golden(t, "custom/v3_apis_stable.example.com_v1.golden.json", indentJSON(t, mustPlain(b.gvs["apis/stable.example.com/v1"].json)))
	})
	t.Run("v2 definitions", func(t *testing.T) {
		var doc struct {
			Definitions map[string]json.RawMessage `json:"definitions"`
		}
		if err := json.Unmarshal(mustPlain(mustV2(b)), &doc); err != nil {
			t.Fatal(err)
		}
		custom := map[string]json.RawMessage{}
		for name, def := range doc.Definitions {
			if isCustomDefinition(name) {
				custom[name] = def
			}
		}
		out, err := json.MarshalIndent(custom, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "custom/v2_definitions.golden.json", append(out, '\n'))
	})
}

// TestCustomPublishedModelAccepted hands SetCustom the models it publishes
// (what internal/crd/schema's Version.OpenAPI returns) instead of the bare
// structural schemas: the documents are the same.
func TestCustomPublishedModelAccepted(t *testing.T) {
	crs := customResources(t, structuralForm, "crontab.yaml", "instance.yaml")
	published := slices.Clone(crs)
	for i, cr := range published {
		published[i].Schema = customKindSchema(cr, v3Flavour)
		published[i].SelectableFields = nil // carried by the model
	}
	docs := map[string]*built{}
	for name, set := range map[string][]CustomResource{"structural": crs, "published": published} {
		d := newTestDocuments(t)
		if err := d.SetCustom(set); err != nil {
			t.Fatal(err)
		}
		b, err := d.build()
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = b
	}
	want, got := docs["structural"], docs["published"]
	if diff := cmp.Diff(string(indentJSON(t, mustPlain(mustV2(want)))), string(indentJSON(t, mustPlain(mustV2(got))))); diff != "" {
		t.Errorf("v2 (-structural +published):\n%s", diff)
	}
	for key, g := range want.gvs {
		if diff := cmp.Diff(string(indentJSON(t, mustPlain(g.json))), string(indentJSON(t, mustPlain(got.gvs[key].json)))); diff != "" {
			t.Errorf("%s (-structural +published):\n%s", key, diff)
		}
	}
}

// TestCustomV2Conversion checks, node by node, what v2 drops of a schema,
// on schemas the sample CRDs do not have.
func TestCustomV2Conversion(t *testing.T) {
	str := func(mods ...func(*spec.Schema)) spec.Schema {
		s := spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}
		for _, m := range mods {
			m(&s)
		}
		return s
	}
	nullable := func(s *spec.Schema) { s.Nullable = true }
	tests := []struct {
		name string
		in   spec.Schema
		want string // the spec property of the v2 definition
	}{
		{
			name: "nullable array loses items and type",
			in:   spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"array"}, Nullable: true, Items: &spec.SchemaOrArray{Schema: &spec.Schema{}}}},
			want: `{}`,
		},
		{
			name: "array under preserve-unknown-fields loses items, then its type",
			in: spec.Schema{
				SchemaProps:      spec.SchemaProps{Type: spec.StringOrArray{"array"}, Items: &spec.SchemaOrArray{Schema: &spec.Schema{}}},
				VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{extPreserveUnknownFields: true}},
			},
			want: `{"x-kubernetes-preserve-unknown-fields":true}`,
		},
		{
			name: "nullable properties leave required",
			in: spec.Schema{SchemaProps: spec.SchemaProps{
				Type: spec.StringOrArray{"object"}, Required: []string{"a", "b", "c"},
				Properties: map[string]spec.Schema{"a": str(nullable), "b": str(), "c": str(nullable)},
			}},
			want: `{"type":"object","required":["b"],"properties":{"a":{},"b":{"type":"string"},"c":{}}}`,
		},
		{
			name: "defaults and junctors go, nested too",
			in: spec.Schema{SchemaProps: spec.SchemaProps{
				Type: spec.StringOrArray{"object"}, Default: map[string]any{"x": "y"},
				AllOf:      []spec.Schema{{SchemaProps: spec.SchemaProps{Required: []string{"x"}}}},
				Properties: map[string]spec.Schema{"x": str(func(s *spec.Schema) { s.Default = "y"; s.Not = &spec.Schema{} })},
			}},
			want: `{"type":"object","properties":{"x":{"type":"string"}}}`,
		},
		{
			name: "int-or-string loses its anyOf",
			in: spec.Schema{
				SchemaProps:      spec.SchemaProps{AnyOf: []spec.Schema{{SchemaProps: spec.SchemaProps{Pattern: "^[0-9]+%$"}}}},
				VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{extIntOrString: true}},
			},
			want: `{"x-kubernetes-int-or-string":true}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := CustomResource{
				Resource: Resource{GVK: cronTabGV.WithKind("Thing"), ListGVK: cronTabGV.WithKind("ThingList"), Plural: "things"},
				Schema:   objectSchema(map[string]spec.Schema{"spec": tt.in}),
			}
			in, err := json.Marshal(cr.Schema)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(customKindSchema(cr, v2Flavour).Properties["spec"])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if after, _ := json.Marshal(cr.Schema); !bytes.Equal(in, after) {
				t.Errorf("the schema given was modified:\n%s\n%s", in, after)
			}
		})
	}
}

// TestCustomV3Unfold checks that x-kubernetes-int-or-string is unfolded
// once whether or not the schema given was.
func TestCustomV3Unfold(t *testing.T) {
	ios := spec.VendorExtensible{Extensions: spec.Extensions{extIntOrString: true}}
	pattern := spec.Schema{SchemaProps: spec.SchemaProps{Pattern: "^[0-9]+%$"}}
	tests := []struct {
		name string
		in   spec.Schema
		want string
	}{
		{"bare", spec.Schema{VendorExtensible: ios}, `{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`},
		{"unfolded already", spec.Schema{SchemaProps: spec.SchemaProps{AnyOf: slices.Clone(intOrStringAnyO)}, VendorExtensible: ios}, `{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`},
		{"own anyOf", spec.Schema{SchemaProps: spec.SchemaProps{AnyOf: []spec.Schema{pattern}}, VendorExtensible: ios}, `{"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]}],"anyOf":[{"pattern":"^[0-9]+%$"}],"x-kubernetes-int-or-string":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := CustomResource{
				Resource: Resource{GVK: cronTabGV.WithKind("Thing"), ListGVK: cronTabGV.WithKind("ThingList"), Plural: "things"},
				Schema:   objectSchema(map[string]spec.Schema{"port": tt.in}),
			}
			first := customKindSchema(cr, v3Flavour)
			again := customKindSchema(CustomResource{Resource: cr.Resource, Schema: first}, v3Flavour)
			for name, s := range map[string]*spec.Schema{"once": first, "twice": again} {
				got, err := json.Marshal(s.Properties["port"])
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, string(got)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestSetCustomRejects(t *testing.T) {
	good := customResources(t, structuralForm, "instance.yaml")[0]
	with := func(f func(*CustomResource)) []CustomResource {
		cr := good
		f(&cr)
		return []CustomResource{cr}
	}
	tests := []struct {
		name string
		crs  []CustomResource
		want error
	}{
		{name: "no group", crs: with(func(cr *CustomResource) { cr.GVK.Group = "" }), want: ErrInvalidResource},
		{name: "no list kind", crs: with(func(cr *CustomResource) { cr.ListGVK = schema.GroupVersionKind{} }), want: ErrInvalidResource},
		{name: "list kind elsewhere", crs: with(func(cr *CustomResource) { cr.ListGVK.Version = "v2" }), want: ErrInvalidResource},
		{name: "bad plural", crs: with(func(cr *CustomResource) { cr.Plural = "Instances" }), want: ErrInvalidResource},
		{name: "unknown subresource", crs: with(func(cr *CustomResource) { cr.Subresources = []string{"log"} }), want: ErrInvalidResource},
		{name: "twice", crs: []CustomResource{good, good}, want: ErrInvalidResource},
		{name: "kind twice", crs: append(with(func(cr *CustomResource) { cr.Plural = "others" }), good), want: ErrInvalidResource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newCustomDocuments(t, "crontab.yaml")
			before, err := d.build()
			if err != nil {
				t.Fatal(err)
			}
			if err := d.SetCustom(tt.crs); !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			after, err := d.build()
			if err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Error("a refused set changed the documents")
			}
		})
	}
}

// TestSetCustomReplaces follows a custom group-version through changes:
// added, changed, removed, each seen by the next request, with the
// documents of unchanged group-versions kept as they were.
func TestSetCustomReplaces(t *testing.T) {
	d := newTestDocuments(t)
	h := d.V3Handler()
	index := func() map[string]string {
		t.Helper()
		w := get(h, "/openapi/v3")
		var doc struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for k, v := range doc.Paths {
			out[k] = v.ServerRelativeURL
		}
		return out
	}
	const key = "apis/stable.example.com/v1"
	builtin := index()
	if _, ok := builtin[key]; ok {
		t.Fatal("custom group-version before SetCustom")
	}

	builtinBuild, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	crs := customResources(t, structuralForm, "crontab.yaml", "instance.yaml")
	if err := d.SetCustom(crs); err != nil {
		t.Fatal(err)
	}
	withCustom := index()
	customBuild, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	// The built-in documents are not made again.
	for key, g := range builtinBuild.gvs {
		if customBuild.gvs[key] != g {
			t.Errorf("%s was made again", key)
		}
	}
	first, ok := withCustom[key]
	if !ok {
		t.Fatalf("%s not in the index after SetCustom", key)
	}
	if w := get(h, first); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"com.example.stable.v1.Instance"`) {
		t.Fatalf("%s: %d", first, w.Code)
	}
	for k, url := range builtin {
		if withCustom[k] != url {
			t.Errorf("%s moved from %s to %s", k, url, withCustom[k])
		}
	}

	// Instance gone: the document changes, the old hash redirects to it.
	if err := d.SetCustom(crs[:2]); err != nil {
		t.Fatal(err)
	}
	second := index()[key]
	if second == first {
		t.Fatal("the document did not change")
	}
	if w := get(h, first); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != second {
		t.Errorf("old hash: %d to %q, want a redirect to %s", w.Code, w.Header().Get("Location"), second)
	}
	if w := get(h, second); strings.Contains(w.Body.String(), "Instance") {
		t.Error("the removed kind is still published")
	}
	// The same set again, in copies: the same documents.
	before, _ := d.build()
	if err := d.SetCustom(customResources(t, structuralForm, "crontab.yaml")); err != nil {
		t.Fatal(err)
	}
	if after, _ := d.build(); after != before {
		t.Error("an unchanged set made the documents again")
	}
	// One of two changed: the other's group-version document is kept.
	changed := customResources(t, structuralForm, "crontab.yaml")
	changed[1].Schema = objectSchema(nil)
	if err := d.SetCustom(changed); err != nil {
		t.Fatal(err)
	}
	if after, _ := d.build(); after.gvs[key] != before.gvs[key] || after.gvs[key+"beta1"] == before.gvs[key+"beta1"] {
		t.Error("want the v1 document kept and the v1beta1 one made again")
	}

	if err := d.SetCustom(nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(builtin, index()); diff != "" {
		t.Errorf("after removing every custom resource (-before +after):\n%s", diff)
	}
	if w := get(h, "/openapi/v3/"+key); w.Code != http.StatusNotFound {
		t.Errorf("removed group-version: %d", w.Code)
	}
	if w := get(d.V2Handler(), "/openapi/v2"); strings.Contains(w.Body.String(), "stable.example.com") {
		t.Error("v2 still publishes the removed custom resources")
	}
}

// TestCustomCollisions checks what happens when custom resources meet
// built-in ones: in a built-in group-version, v3 keeps the built-in
// document and v2 takes the custom paths that no built-in resource has;
// a custom definition named like a built-in one is renamed in v2.
func TestCustomCollisions(t *testing.T) {
	rbac := schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}
	core := schema.GroupVersion{Group: "core.api.k8s.io", Version: "v1"}
	cr := func(gv schema.GroupVersion, kind, plural string) CustomResource {
		return CustomResource{
			Resource: Resource{GVK: gv.WithKind(kind), ListGVK: gv.WithKind(kind + "List"), Plural: plural, Namespaced: true},
			Schema:   objectSchema(map[string]spec.Schema{"spec": {SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}}),
		}
	}
	d := newTestDocuments(t)
	if err := d.SetCustom([]CustomResource{
		cr(rbac, "Role", "roles"),          // a built-in resource's paths
		cr(rbac, "Widget", "widgets"),      // a new resource in a built-in group-version
		cr(core, "Pod", "pods"),            // io.k8s.api.core.v1.Pod, like the built-in Pod
		cr(cronTabGV, "Gadget", "gadgets"), // nothing in common
	}); err != nil {
		t.Fatal(err)
	}
	b, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	builtin := newTestDocuments(t)
	bb, err := builtin.build()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustPlain(b.gvs[gvPath(rbac)].json), mustPlain(bb.gvs[gvPath(rbac)].json)) {
		t.Error("v3: the built-in rbac.authorization.k8s.io/v1 document changed")
	}
	if b.gvs[gvPath(core)] == nil {
		t.Error("v3: no document for core.api.k8s.io/v1")
	}

	var v2 struct {
		Paths       map[string]map[string]json.RawMessage `json:"paths"`
		Definitions map[string]json.RawMessage            `json:"definitions"`
	}
	if err := json.Unmarshal(mustPlain(mustV2(b)), &v2); err != nil {
		t.Fatal(err)
	}
	var builtinV2 struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(mustPlain(mustV2(bb)), &builtinV2); err != nil {
		t.Fatal(err)
	}
	rolePath := "/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}"
	if !bytes.Equal(v2.Paths[rolePath]["get"], builtinV2.Paths[rolePath]["get"]) {
		t.Errorf("v2: the built-in path %s was replaced", rolePath)
	}
	if _, ok := v2.Definitions["io.k8s.authorization.rbac.v1.Role"]; ok {
		t.Error("v2: the custom Role, whose paths are all built-in ones, has a definition")
	}
	for _, path := range []string{
		"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/widgets/{name}",
		"/apis/core.api.k8s.io/v1/namespaces/{namespace}/pods/{name}",
		"/apis/stable.example.com/v1/namespaces/{namespace}/gadgets/{name}",
	} {
		if v2.Paths[path] == nil {
			t.Errorf("v2: no path %s", path)
		}
	}
	if !strings.Contains(string(v2.Paths["/apis/core.api.k8s.io/v1/namespaces/{namespace}/pods/{name}"]["get"]), `"#/definitions/io.k8s.api.core.v1.Pod_v2"`) {
		t.Error("v2: the custom Pod's operations do not refer to io.k8s.api.core.v1.Pod_v2")
	}
	if !strings.Contains(string(v2.Definitions["io.k8s.api.core.v1.PodList_v2"]), `"#/definitions/io.k8s.api.core.v1.Pod_v2"`) {
		t.Error("v2: the custom PodList does not list io.k8s.api.core.v1.Pod_v2")
	}
	if strings.Contains(string(v2.Definitions["io.k8s.api.core.v1.Pod"]), "core.api.k8s.io") {
		t.Error("v2: the built-in Pod definition was replaced")
	}
	if !strings.Contains(string(v2.Definitions["io.k8s.api.core.v1.Pod_v2"]), `"group":"core.api.k8s.io"`) {
		t.Error("v2: no renamed custom Pod")
	}
}

// TestCustomBareObject: a version without a schema, and, in v2, one that
// preserves unknown fields at the root, are published as an object with
// the group-version-kind and selectable fields alone.
func TestCustomBareObject(t *testing.T) {
	preserve := &spec.Schema{
		SchemaProps:      spec.SchemaProps{Type: spec.StringOrArray{"object"}, Description: "Anything."},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{extPreserveUnknownFields: true}},
	}
	const gvkJSON = `"x-kubernetes-group-version-kind":[{"group":"stable.example.com","kind":"Thing","version":"v1"}]`
	tests := []struct {
		name       string
		schema     *spec.Schema
		selectable []string
		f          flavour
		want       string
	}{
		{name: "no schema v2", f: v2Flavour, want: `{"type":"object",` + gvkJSON + `}`},
		{name: "no schema v3", f: v3Flavour, selectable: []string{".spec.a"}, want: `{"type":"object",` + gvkJSON + `,"x-kubernetes-selectable-fields":[{"fieldPath":"spec.a"}]}`},
		{name: "preserving v2", schema: preserve, f: v2Flavour, want: `{"type":"object",` + gvkJSON + `}`},
		{name: "published bare object v3", schema: customKindSchema(CustomResource{Resource: Resource{GVK: cronTabGV.WithKind("Thing")}, SelectableFields: []string{".spec.a"}}, v3Flavour), f: v3Flavour, want: `{"type":"object",` + gvkJSON + `,"x-kubernetes-selectable-fields":[{"fieldPath":"spec.a"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := CustomResource{
				Resource:         Resource{GVK: cronTabGV.WithKind("Thing"), ListGVK: cronTabGV.WithKind("ThingList"), Plural: "things"},
				Schema:           tt.schema,
				SelectableFields: tt.selectable,
			}
			got, err := json.Marshal(customKindSchema(cr, tt.f))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
