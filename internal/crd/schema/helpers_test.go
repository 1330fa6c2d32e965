package schema

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// readCRD reads a CustomResourceDefinition from testdata.
func readCRD(tb testing.TB, name string) *apiextensionsv1.CustomResourceDefinition {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return crd
}

// widgets is the compiled v1 of testdata/widgets.yaml, shared by the
// tests (a Version is immutable).
var widgets = sync.OnceValues(func() (*Version, error) {
	data, err := os.ReadFile(filepath.Join("testdata", "widgets.yaml"))
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, err
	}
	return Compile(crd, "v1")
})

func widgetVersion(tb testing.TB) *Version {
	tb.Helper()
	v, err := widgets()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// compileYAML compiles version v1 of a CustomResourceDefinition of group
// schema-helper.example.com, kind Thing, whose v1 schema (the
// openAPIV3Schema) is given in YAML; more sets other fields of the
// version.
func compileYAML(tb testing.TB, openAPIV3Schema string, more ...func(*apiextensionsv1.CustomResourceDefinition)) *Version {
	tb.Helper()
	v, err := Compile(thingCRD(tb, openAPIV3Schema, more...), "v1")
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func thingCRD(tb testing.TB, openAPIV3Schema string, more ...func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
	tb.Helper()
	props := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.UnmarshalStrict([]byte(openAPIV3Schema), props); err != nil {
		tb.Fatalf("schema: %v", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	crd.Name = "things.schema-helper.example.com"
	crd.Spec.Group = "schema-helper.example.com"
	crd.Spec.Scope = apiextensionsv1.NamespaceScoped
	crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"}
	crd.Status.AcceptedNames = crd.Spec.Names
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{
		Name: "v1", Served: true, Storage: true,
		Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props},
	}}
	for _, f := range more {
		f(crd)
	}
	return crd
}

// object parses a JSON or YAML object as kube-apiserver's decoder does
// (integers as int64, other numbers as float64).
func object(tb testing.TB, text string) *unstructured.Unstructured {
	tb.Helper()
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		tb.Fatalf("object: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := utiljson.Unmarshal(data, &u.Object); err != nil {
		tb.Fatalf("object: %v", err)
	}
	return u
}

// errorStrings are the texts of errs, sorted: kube-apiserver reports the
// errors of sibling fields in map order.
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

// compareGolden compares got with testdata/<name>, or rewrites it with
// -update.
func compareGolden(t *testing.T, name string, got []byte) {
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
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// goldenName turns a test name into a file name.
func goldenName(name, ext string) string {
	return strings.NewReplacer(" ", "-", "/", "-").Replace(name) + ext
}
