package openapi

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/common"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func TestResolveSchema(t *testing.T) {
	d, err := New(clientgoscheme.Scheme, servedResources(), testInfo)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Resolver()
	s, err := r.ResolveSchema(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err != nil {
		t.Fatal(err)
	}
	replicas := s.Properties["spec"].Properties["replicas"]
	if len(replicas.Type) != 1 || replicas.Type[0] != "integer" {
		t.Errorf("spec.replicas = %+v, want an inlined integer", replicas)
	}
	containers := s.Properties["spec"].Properties["template"].Properties["spec"].Properties["containers"]
	if containers.Items == nil || containers.Items.Schema == nil || containers.Items.Schema.Properties["image"].Type[0] != "string" {
		t.Errorf("containers not inlined: %+v", containers)
	}
	if _, err := r.ResolveSchema(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Nope"}); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestResolveCustomSchema resolves custom kinds, as the type checker of
// admission policies does, through SetCustom's changes.
func TestResolveCustomSchema(t *testing.T) {
	d := newCustomDocuments(t, "crontab.yaml", "instance.yaml")
	r := d.Resolver()
	cronTab := cronTabGV.WithKind("CronTab")
	s, err := r.ResolveSchema(cronTab)
	if err != nil {
		t.Fatal(err)
	}
	cronSpec := s.Properties["spec"]
	if got := cronSpec.Properties["replicas"].Type; len(got) != 1 || got[0] != "integer" {
		t.Errorf("spec.replicas type %v", got)
	}
	if got := s.Properties["metadata"].Properties["name"].Type; len(got) != 1 || got[0] != "string" {
		t.Errorf("metadata not inlined: metadata.name type %v", got)
	}
	if got := cronSpec.Properties["embedded"].Properties["metadata"].Properties["labels"].AdditionalProperties; got == nil {
		t.Error("the embedded resource's metadata not inlined")
	}
	decl := common.SchemaDeclType(&celopenapi.Schema{Schema: s}, true)
	if decl == nil {
		t.Fatal("no CEL type")
	}
	for _, path := range [][]string{{"spec", "cronSpec"}, {"spec", "ports"}, {"metadata", "name"}, {"status", "replicas"}} {
		fields := decl.Fields
		for i, name := range path {
			f, ok := fields[name]
			if !ok {
				t.Errorf("CEL type has no %s", strings.Join(path[:i+1], "."))
				break
			}
			fields = f.Type.Fields
		}
	}
	if _, err := r.ResolveSchema(cronTabGV.WithKind("CronTabList")); err != nil {
		t.Errorf("list kind: %v", err)
	}
	if _, err := r.ResolveSchema(schema.GroupVersionKind{Group: "stable.example.com", Version: "v1beta1", Kind: "CronTab"}); err != nil {
		t.Errorf("v1beta1: %v", err)
	}

	// Instance gone, CronTab's schema changed: the resolver follows.
	crs := customResources(t, structuralForm, "crontab.yaml")
	crs[0].Schema = objectSchema(map[string]spec.Schema{"spec": *objectSchema(map[string]spec.Schema{"size": {SchemaProps: spec.SchemaProps{Type: []string{"string"}}}})})
	if err := d.SetCustom(crs); err != nil {
		t.Fatal(err)
	}
	s, err = r.ResolveSchema(cronTab)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Properties["spec"].Properties["size"]; !ok {
		t.Error("the resolver did not follow the new schema")
	}
	if _, err := r.ResolveSchema(cronTabGV.WithKind("Instance")); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("removed kind: %v", err)
	}
	if err := d.SetCustom(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ResolveSchema(cronTab); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("removed group-version: %v", err)
	}
	// Built-in kinds are resolved all along.
	if _, err := r.ResolveSchema(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); err != nil {
		t.Error(err)
	}
}
