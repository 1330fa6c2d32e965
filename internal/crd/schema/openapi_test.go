package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

func TestOpenAPI(t *testing.T) {
	v := widgetVersion(t)
	data, err := json.MarshalIndent(v.OpenAPI(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "openapi-v3.json", append(data, '\n'))
	if got, want := v.ModelName(), "com.example.schema-helper.v1.Widget"; got != want {
		t.Errorf("ModelName = %q, want %q", got, want)
	}
}

// TestOpenAPIFresh checks that every call builds new schemas.
func TestOpenAPIFresh(t *testing.T) {
	v := widgetVersion(t)
	a := v.OpenAPI()
	a.Properties["spec"].Required[0] = "changed"
	a.Properties["spec"].Properties["ports"].Extensions["x-kubernetes-list-map-keys"].([]string)[0] = "changed"
	a.Properties["apiVersion"].Type[0] = "changed"
	b := v.OpenAPI()
	if b.Properties["spec"].Required[0] == "changed" ||
		b.Properties["spec"].Properties["ports"].Extensions["x-kubernetes-list-map-keys"].([]string)[0] == "changed" ||
		b.Properties["apiVersion"].Type[0] == "changed" {
		t.Fatal("schemas are shared between calls")
	}
}

func TestOpenAPIShapes(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		preserve     bool
		// want is the kind's v3 model, as JSON, of the spec property (or
		// of the whole model when root); internal/openapi derives v2.
		root   bool
		wantV3 string
	}{
		{
			name:   "int-or-string unfolded, nullable kept",
			schema: `{type: object, properties: {spec: {type: object, required: [a, nul], properties: {a: {x-kubernetes-int-or-string: true}, nul: {type: string, nullable: true}}}}}`,
			wantV3: `{"type":"object","required":["a","nul"],"properties":{"a":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true},"nul":{"type":"string","nullable":true}}}`,
		},
		{
			name:   "preserve unknown fields",
			schema: `{type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}}}`,
			wantV3: `{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-preserve-unknown-fields":true}`,
		},
		{
			name:   "embedded resource",
			schema: `{type: object, properties: {spec: {type: object, x-kubernetes-embedded-resource: true, properties: {a: {type: string}}}}}`,
			wantV3: `{"type":"object","required":["kind","apiVersion"],"properties":{"a":{"type":"string"},"apiVersion":{"description":"apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},"kind":{"description":"kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},"metadata":{"description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata","$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}},"x-kubernetes-embedded-resource":true}`,
		},
		{
			name:   "root preserving unknown fields",
			schema: `{type: object, x-kubernetes-preserve-unknown-fields: true}`,
			root:   true,
			wantV3: `{"type":"object","properties":{"apiVersion":{"description":"APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},"kind":{"description":"Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},"metadata":{"description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata","$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}},"x-kubernetes-group-version-kind":[{"group":"schema-helper.example.com","kind":"Thing","version":"v1"}],"x-kubernetes-preserve-unknown-fields":true}`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := compileYAML(t, c.schema)
			model := v.OpenAPI()
			var got any = model
			if !c.root {
				got = model.Properties["spec"]
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.wantV3, string(data)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// apply merges the applied configuration into live as server-side apply
// does, with the type converter.
func apply(t *testing.T, tc managedfields.TypeConverter, live, config *unstructured.Unstructured) (map[string]any, error) {
	t.Helper()
	lv, err := tc.ObjectToTyped(live)
	if err != nil {
		return nil, err
	}
	cv, err := tc.ObjectToTyped(config)
	if err != nil {
		return nil, err
	}
	merged, err := lv.Merge(cv)
	if err != nil {
		return nil, err
	}
	obj, err := tc.TypedToObject(merged)
	if err != nil {
		return nil, err
	}
	return obj.(*unstructured.Unstructured).Object, nil
}

func TestTypeConverter(t *testing.T) {
	tc := widgetVersion(t).TypeConverter()
	const head = `apiVersion: schema-helper.example.com/v1
kind: Widget
metadata: {name: w, namespace: ns}
`
	for _, c := range []struct {
		name, live, config, want string
		err                      string
	}{
		{
			name:   "set list: union",
			live:   `spec: {tags: [a, b]}`,
			config: `spec: {tags: [b, c]}`,
			want:   `spec: {tags: [a, b, c]}`,
		},
		{
			name:   "map list: merged by key",
			live:   `spec: {ports: [{name: http, port: 80}, {name: https, port: 443}]}`,
			config: `spec: {ports: [{name: http, port: 8080, protocol: TCP}]}`,
			want:   `spec: {ports: [{name: http, port: 8080, protocol: TCP}, {name: https, port: 443}]}`,
		},
		{
			name:   "atomic list: replaced",
			live:   `spec: {args: [p, q]}`,
			config: `spec: {args: [z]}`,
			want:   `spec: {args: [z]}`,
		},
		{
			name:   "atomic map: replaced",
			live:   `spec: {selector: {a: "1", b: "2"}}`,
			config: `spec: {selector: {c: "3"}}`,
			want:   `spec: {selector: {c: "3"}}`,
		},
		{
			name:   "granular map: merged",
			live:   `spec: {labels: {a: b}}`,
			config: `spec: {labels: {c: d}}`,
			want:   `spec: {labels: {a: b, c: d}}`,
		},
		{
			name:   "unknown fields preserved and merged",
			live:   `spec: {config: {x: {y: 1}}}`,
			config: `spec: {config: {x: {z: 2}, w: [1]}}`,
			want:   `spec: {config: {x: {y: 1, z: 2}, w: [1]}}`,
		},
		{
			name:   "embedded resource: ObjectMeta's structure",
			live:   `spec: {template: {apiVersion: v1, kind: Pod, metadata: {labels: {a: b}, finalizers: [f1]}, spec: {x: 1}}}`,
			config: `spec: {template: {apiVersion: v1, kind: Pod, metadata: {labels: {c: d}, finalizers: [f2]}}}`,
			want:   `spec: {template: {apiVersion: v1, kind: Pod, metadata: {labels: {a: b, c: d}, finalizers: [f1, f2]}, spec: {x: 1}}}`,
		},
		{
			name:   "object metadata",
			live:   `spec: {}`,
			config: `spec: {}`,
			want:   `spec: {}`,
		},
		{
			name:   "wrong type",
			live:   `spec: {}`,
			config: `spec: {replicas: three}`,
			err:    ".spec.replicas: expected numeric (int or float), got string",
		},
		{
			name:   "undeclared field",
			live:   `spec: {}`,
			config: `spec: {foo: 1}`,
			err:    ".spec.foo: field not declared in schema",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := apply(t, tc, object(t, head+c.live), object(t, head+c.config))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(object(t, head+c.want).Object, got); diff != "" {
				t.Errorf("merged (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTypeConverterFieldSet checks the field paths server-side apply
// records in managedFields: set items by value, map items by key.
func TestTypeConverterFieldSet(t *testing.T) {
	tc := widgetVersion(t).TypeConverter()
	tv, err := tc.ObjectToTyped(object(t, `{apiVersion: schema-helper.example.com/v1, kind: Widget, metadata: {name: w},
		spec: {tags: [a], ports: [{name: http, port: 80}], args: [x]}}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	data, err := set.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:name":{}},"f:spec":{"f:args":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:tags":{"v:\"a\"":{}}}}`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("field set (-want +got):\n%s", diff)
	}
}

func TestNewTypeConverter(t *testing.T) {
	two := func(crd *apiextensionsv1.CustomResourceDefinition) {
		v2 := crd.Spec.Versions[0].DeepCopy()
		v2.Name, v2.Storage = "v2", false
		v2.Schema.OpenAPIV3Schema.Properties["spec"].Properties["b"] = apiextensionsv1.JSONSchemaProps{Type: "integer"}
		crd.Spec.Versions = append(crd.Spec.Versions, *v2)
	}
	crd := thingCRD(t, `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}`, two)
	v1, err := Compile(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := Compile(crd, "v2")
	if err != nil {
		t.Fatal(err)
	}
	tc, err := NewTypeConverter(v1, v2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		obj string
		err string
	}{
		{obj: `{apiVersion: schema-helper.example.com/v1, kind: Thing, spec: {a: x}}`},
		{obj: `{apiVersion: schema-helper.example.com/v2, kind: Thing, spec: {a: x, b: 1}}`},
		{obj: `{apiVersion: schema-helper.example.com/v1, kind: Thing, spec: {b: 1}}`, err: ".spec.b: field not declared in schema"},
		{obj: `{apiVersion: schema-helper.example.com/v3, kind: Thing}`, err: "no corresponding type for schema-helper.example.com/v3, Kind=Thing"},
	} {
		_, err := tc.ObjectToTyped(object(t, c.obj))
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: error %v, want %q", c.obj, err, c.err)
		}
	}
	if _, err := v1.TypeConverter().ObjectToTyped(object(t, `{apiVersion: schema-helper.example.com/v2, kind: Thing}`)); err == nil {
		t.Error("a version's own type converter knows another version")
	}
}
