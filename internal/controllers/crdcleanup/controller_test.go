package crdcleanup

import (
	"context"
	"log/slog"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
	"github.com/portcullis/portcullis/internal/controllers/crdstatus"
	"github.com/portcullis/portcullis/internal/crd"
)

var things = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "things"}

func TestCleanup(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	crds, err := crd.NewCRDs(env.Objects, log)
	if err != nil {
		t.Fatal(err)
	}
	status, err := crdstatus.New(env.Objects, env.API, log)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, crds.Run)
	controllertest.Run(t, crd.New(crds, env.Objects.Registry(), nil, log).Run)
	controllertest.Run(t, status.Run)
	controllertest.Run(t, New(crds, env.Objects, env.API, log).Run)

	preserve := true
	def := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
	if _, err := env.API.Create(ctx, def, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		_, ok := env.Objects.Lookup(things)
		return ok, "things are not served"
	})
	for _, name := range []string{"one", "two"} {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
			"metadata": map[string]any{"name": name}}}
		if name == "two" {
			// A finalizer of its own holds it until someone removes it.
			u.SetFinalizers([]string{"example.com/hold"})
		}
		if _, err := env.API.Create(ctx, u, "test"); err != nil {
			t.Fatal(err)
		}
	}

	if err := env.API.Remove(ctx, crd.GVR, "", def.Name); err != nil {
		t.Fatal(err)
	}
	get := func() (*apiextensionsv1.CustomResourceDefinition, error) {
		obj, err := env.Objects.Get(ctx, crd.GVR, "", def.Name)
		if err != nil {
			return nil, err
		}
		return obj.(*apiextensionsv1.CustomResourceDefinition), nil
	}
	controllertest.Eventually(t, func() (bool, string) {
		_, err := env.Objects.Get(ctx, things, "", "one")
		return apierrors.IsNotFound(err), "thing one is still there"
	})
	// two waits for its finalizer; so does the CRD, in progress.
	cur, err := get()
	if err != nil {
		t.Fatal(err)
	}
	if c := condition(cur); c == nil || c.Reason != "InstanceDeletionInProgress" {
		t.Fatalf("Terminating condition %+v, want InstanceDeletionInProgress", c)
	}
	two, err := env.Objects.Get(ctx, things, "", "two")
	if err != nil {
		t.Fatal(err)
	}
	held := two.(*unstructured.Unstructured)
	held.SetFinalizers(nil)
	if _, err := env.API.Apply(ctx, held, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		_, err := get()
		return apierrors.IsNotFound(err), "the CRD is still there"
	})
	controllertest.Eventually(t, func() (bool, string) {
		_, ok := env.Objects.Lookup(things)
		return !ok, "things are still served"
	})
}

func condition(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Terminating {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}
