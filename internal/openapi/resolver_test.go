package openapi

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
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
