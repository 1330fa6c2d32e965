package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The documents under testdata/custom/kube-apiserver are what
// kube-apiserver v1.37.2 publishes for the CustomResourceDefinitions of
// testdata/custom (crontab.yaml, instance.yaml): they were made, outside
// this repository, by apiextensions-apiserver v0.37.2's CRD OpenAPI builder
// called as kube-apiserver's controllers call it (BuildOpenAPIV2 with
// Options{V2: true, IncludeSelectableFields: true}, handler.PruneDefaults
// and MergeSpecs for v2; BuildOpenAPIV3 with Options{IncludeSelectableFields:
// true} and MergeSpecsV3 per group-version for v3). Two things were
// changed, to keep them small: the v2 document's shared parameters are
// written in place (this package does not share them, in built-in
// documents either), and the built-in definitions (ObjectMeta, Status,
// Scale...) are emptied: ours come from the Go types (reflect.go), with
// their own descriptions and group-version-kinds, and are compared by name.

// isCustomDefinition tells the custom definitions from the built-in ones.
func isCustomDefinition(name string) bool { return !strings.HasPrefix(name, "io.k8s.") }

func readReference(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "custom", "kube-apiserver", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func decodeJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// emptyBuiltins empties the built-in definitions of defs.
func emptyBuiltins(defs map[string]any) {
	for name := range defs {
		if !isCustomDefinition(name) {
			defs[name] = map[string]any{}
		}
	}
}

// TestCustomV3MatchesKubeAPIServer compares the v3 documents of the
// custom group-versions with kube-apiserver's: paths, operations,
// parameters, custom definitions exactly, built-in definitions by name.
func TestCustomV3MatchesKubeAPIServer(t *testing.T) {
	for formName, form := range schemaForms {
		d := newTestDocuments(t)
		if err := d.SetCustom(customResources(t, form, "crontab.yaml", "instance.yaml")); err != nil {
			t.Fatal(err)
		}
		b, err := d.build()
		if err != nil {
			t.Fatal(err)
		}
		for _, version := range []string{"v1", "v1beta1"} {
			key := "apis/stable.example.com/" + version
			t.Run(formName+"/"+key, func(t *testing.T) {
				g := b.gvs[key]
				if g == nil {
					t.Fatalf("no document for %s", key)
				}
				got := decodeJSON(t, mustPlain(g.json))
				emptyBuiltins(got["components"].(map[string]any)["schemas"].(map[string]any))
				want := readReference(t, "v3_"+strings.ReplaceAll(key, "/", "_")+".json")
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-kube-apiserver +ours):\n%s", diff)
				}
			})
		}
	}
}

// TestCustomV2MatchesKubeAPIServer compares what the custom resources add
// to the v2 document with what kube-apiserver adds: the custom paths and
// definitions exactly, and the built-in definitions they reach by name.
func TestCustomV2MatchesKubeAPIServer(t *testing.T) {
	want := readReference(t, "v2.json")
	for formName, form := range schemaForms {
		t.Run(formName, func(t *testing.T) {
			d := newTestDocuments(t)
			if err := d.SetCustom(customResources(t, form, "crontab.yaml", "instance.yaml")); err != nil {
				t.Fatal(err)
			}
			b, err := d.build()
			if err != nil {
				t.Fatal(err)
			}
			compareV2(t, decodeJSON(t, mustPlain(mustV2(b))), want)
		})
	}
}

func compareV2(t *testing.T, doc, want map[string]any) {

	paths := map[string]any{}
	for path, item := range doc["paths"].(map[string]any) {
		if strings.HasPrefix(path, "/apis/stable.example.com/") {
			paths[path] = item
		}
	}
	if diff := cmp.Diff(want["paths"], any(paths)); diff != "" {
		t.Errorf("paths (-kube-apiserver +ours):\n%s", diff)
	}
	defs := doc["definitions"].(map[string]any)
	for name, def := range want["definitions"].(map[string]any) {
		got, ok := defs[name]
		switch {
		case !ok:
			t.Errorf("definition %s missing", name)
		case isCustomDefinition(name):
			if diff := cmp.Diff(def, got); diff != "" {
				t.Errorf("definition %s (-kube-apiserver +ours):\n%s", name, diff)
			}
		}
	}
	for name := range defs {
		if _, ok := want["definitions"].(map[string]any)[name]; isCustomDefinition(name) && !ok {
			t.Errorf("definition %s is not kube-apiserver's", name)
		}
	}
}
