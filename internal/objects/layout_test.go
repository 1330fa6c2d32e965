package objects_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/storage"
)

func TestMoveLegacyKeys(t *testing.T) {
	o := objectstest.New(t)
	ctx := context.Background()
	store := o.Store()
	put := func(key, value string) {
		t.Helper()
		if _, err := store.Create(ctx, key, []byte(value)); err != nil {
			t.Fatal(err)
		}
	}
	// An earlier portcullis's layout, and keys that are already right.
	put("/registry/apps/deployments/default/web", "deployment")
	put("/registry/services/default/api", "service")
	put("/registry/services/specs/default/kept", "service of the current layout")
	put("/registry/nodes/n1", "node")
	put("/registry/endpoints/default/api", "endpoints")
	put("/registry/networking.k8s.io/ingresses/default/in", "ingress")
	put("/registry/configmaps/default/c", "configmap")
	put("/registry/apiextensions.k8s.io/customresourcedefinitions/w.example.com", "crd")
	// An interrupted earlier move: the copy exists, the original too.
	put("/registry/rbac.authorization.k8s.io/roles/default/r", "role")
	put("/registry/roles/default/r", "role")

	moved, err := o.MoveLegacyKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if moved != 6 {
		t.Errorf("moved %d keys, want 6", moved)
	}
	res, err := store.List(ctx, "/registry/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range res.KVs {
		got[kv.Key] = string(kv.Value)
	}
	want := map[string]string{
		"/registry/deployments/default/web":                                      "deployment",
		"/registry/services/specs/default/api":                                   "service",
		"/registry/services/specs/default/kept":                                  "service of the current layout",
		"/registry/minions/n1":                                                   "node",
		"/registry/services/endpoints/default/api":                               "endpoints",
		"/registry/ingress/default/in":                                           "ingress",
		"/registry/configmaps/default/c":                                         "configmap",
		"/registry/apiextensions.k8s.io/customresourcedefinitions/w.example.com": "crd",
		"/registry/roles/default/r":                                              "role",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys after the move (-want +got):\n%s", diff)
	}
	// A second run finds nothing to do.
	if moved, err := o.MoveLegacyKeys(ctx); err != nil || moved != 0 {
		t.Errorf("second run moved %d, %v", moved, err)
	}
}
