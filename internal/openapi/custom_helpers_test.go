package openapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	crdschema "github.com/portcullis/portcullis/internal/crd/schema"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

// schemaForm is how a test hands a version's schema to SetCustom.
type schemaForm int

const (
	// structuralForm is the structural schema's ToKubeOpenAPI, not unfolded.
	structuralForm schemaForm = iota
	// unfoldedForm is the same, unfolded.
	unfoldedForm
	// compiledForm is the published model that internal/crd/schema
	// compiles, Version.OpenAPI, as the server hands it over.
	compiledForm
)

var schemaForms = map[string]schemaForm{"structural": structuralForm, "unfolded": unfoldedForm, "compiled": compiledForm}

// customResources reads the CustomResourceDefinitions of testdata/custom
// and returns their served versions as SetCustom takes them, the schema in
// form, as the catalog makes them from a CRD: the structural schema of
// apiextensions-apiserver's library, the names and scope of the spec.
func customResources(t testing.TB, form schemaForm, files ...string) []CustomResource {
	t.Helper()
	var out []CustomResource
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "custom", f))
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			out = append(out, customResource(t, &crd, v, form))
		}
	}
	return out
}

func customResource(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion, form schemaForm) CustomResource {
	t.Helper()
	gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
	cr := CustomResource{Resource: Resource{
		GVK:        gv.WithKind(crd.Spec.Names.Kind),
		ListGVK:    gv.WithKind(crd.Spec.Names.ListKind),
		Plural:     crd.Spec.Names.Plural,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		Verbs:      allVerbs,
	}}
	if v.Subresources != nil && v.Subresources.Status != nil {
		cr.Subresources = append(cr.Subresources, "status")
	}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		cr.Subresources = append(cr.Subresources, "scale")
	}
	for _, f := range v.SelectableFields {
		cr.SelectableFields = append(cr.SelectableFields, f.JSONPath)
	}
	if form == compiledForm {
		crd = crd.DeepCopy()
		crd.Status.AcceptedNames = crd.Spec.Names
		compiled, err := crdschema.Compile(crd, v.Name)
		if err != nil {
			t.Fatalf("%s %s: %v", crd.Name, v.Name, err)
		}
		cr.Schema = compiled.OpenAPI()
		cr.SelectableFields = nil // in the model
		return cr
	}
	if v.Schema != nil {
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			t.Fatalf("%s %s: %v", crd.Name, v.Name, err)
		}
		if errs := structuralschema.ValidateStructural(nil, s); len(errs) > 0 {
			t.Fatalf("%s %s: %v", crd.Name, v.Name, errs.ToAggregate())
		}
		if form == unfoldedForm {
			s = s.Unfold()
		}
		cr.Schema = s.ToKubeOpenAPI()
	}
	return cr
}

// newCustomDocuments returns the test documents with the custom resources
// of files published.
func newCustomDocuments(t testing.TB, files ...string) *Documents {
	t.Helper()
	d := newTestDocuments(t)
	if err := d.SetCustom(customResources(t, structuralForm, files...)); err != nil {
		t.Fatalf("SetCustom: %v", err)
	}
	return d
}

// cronTab is the sample custom resource of testdata/custom/crontab.yaml,
// served as stable.example.com/v1 (with status and scale) and v1beta1
// (preserving unknown fields).
var cronTabGV = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}

// schemaOf returns a bare schema for a hand-made custom resource.
func objectSchema(props map[string]spec.Schema) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}, Properties: props}}
}

func customKey(gv schema.GroupVersion) string { return strings.ReplaceAll(gvPath(gv), "/", "_") }
