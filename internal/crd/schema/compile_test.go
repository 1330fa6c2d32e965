package schema

import (
	"errors"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestCompile(t *testing.T) {
	v := widgetVersion(t)
	if got, want := v.GroupVersionKind(), (schema.GroupVersionKind{Group: "schema-helper.example.com", Version: "v1", Kind: "Widget"}); got != want {
		t.Errorf("GroupVersionKind = %v, want %v", got, want)
	}
	if !v.Namespaced() || !v.HasStatus() || v.Scale() == nil || v.Scale().SpecReplicasPath != ".spec.replicas" || v.Structural() == nil {
		t.Errorf("Namespaced %v, HasStatus %v, Scale %v, Structural nil %v", v.Namespaced(), v.HasStatus(), v.Scale(), v.Structural() == nil)
	}
	plain := compileYAML(t, `{type: object}`)
	if plain.HasStatus() || plain.Scale() != nil {
		t.Errorf("plain: HasStatus %v, Scale %v", plain.HasStatus(), plain.Scale())
	}
}

// TestCompileAcceptedKind checks that objects must carry the accepted
// kind, which differs from spec.names.kind while a rename is pending.
func TestCompileAcceptedKind(t *testing.T) {
	v := compileYAML(t, `{type: object}`, func(crd *apiextensionsv1.CustomResourceDefinition) {
		crd.Spec.Names.Kind, crd.Spec.Names.ListKind = "NewThing", ""
	})
	if got := v.GroupVersionKind().Kind; got != "Thing" {
		t.Errorf("kind %q, want the accepted Thing", got)
	}
	// The published models follow spec.names, defaulted as the API does.
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		version string
		change  func(*apiextensionsv1.CustomResourceDefinition)
		is      error
		text    string
	}{
		{
			name: "unknown version", version: "v9",
			is: ErrVersion, text: `no such version: CustomResourceDefinition things.schema-helper.example.com has no version "v9"`,
		},
		{
			name: "names not accepted", version: "v1",
			change: func(crd *apiextensionsv1.CustomResourceDefinition) {
				crd.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{}
			},
			is: ErrNotAccepted, text: "names not accepted: CustomResourceDefinition things.schema-helper.example.com has an empty status.acceptedNames.kind",
		},
		{
			name: "not structural", version: "v1",
			change: func(crd *apiextensionsv1.CustomResourceDefinition) {
				crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Items = &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1.JSONSchemaProps{{Type: "string"}}}
			},
			is: ErrSchema, text: "schema cannot be served: things.schema-helper.example.com v1 is not structural: OpenAPIV3Schema 'items' must be a schema, but is an array",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			crd := thingCRD(t, `{type: object}`)
			if c.change != nil {
				c.change(crd)
			}
			v, err := Compile(crd, c.version)
			if v != nil || !errors.Is(err, c.is) || err.Error() != c.text {
				t.Fatalf("Compile = %v, %v; want %q (%v)", v, err, c.text, c.is)
			}
		})
	}
}

// TestCompileLegacy compiles a version with the legacy
// spec.preserveUnknownFields and a schema that is not structural, which
// kube-apiserver serves without pruning, defaults or rules.
func TestCompileLegacy(t *testing.T) {
	crd := thingCRD(t, `{type: object, properties: {spec: {default: {a: 1}}}}`, func(crd *apiextensionsv1.CustomResourceDefinition) {
		crd.Spec.PreserveUnknownFields = true
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Items = &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1.JSONSchemaProps{{Type: "string"}}}
	})
	v, err := Compile(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if v.Structural() != nil {
		t.Error("a structural schema from a non-structural one")
	}
	obj := object(t, `{apiVersion: schema-helper.example.com/v1, kind: Thing, metadata: {name: a}, spec: {x: 1}, other: 2}`)
	if unknown, err := v.Coerce(obj); err != nil || len(unknown) > 0 {
		t.Fatalf("Coerce = %v, %v", unknown, err)
	}
	v.Default(obj.Object)
	if _, ok := obj.Object["other"]; !ok {
		t.Error("an unknown field was pruned")
	}
	if _, err := v.TypeConverter().ObjectToTyped(obj); err != nil {
		t.Errorf("type converter: %v", err)
	}
}
