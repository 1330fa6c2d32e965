package apiservices

import (
	"context"
	"log/slog"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
	"github.com/portcullis/portcullis/internal/registry"
)

func get(t *testing.T, env *controllertest.Env, name string) (*apiregistrationv1.APIService, error) {
	t.Helper()
	obj, err := env.Objects.Get(context.Background(), apiServices, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*apiregistrationv1.APIService), nil
}

func TestSync(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	reg := env.Objects.Registry()
	c := New(env.Objects, reg, env.API, slog.New(slog.DiscardHandler))
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	apps, err := get(t, env, "v1.apps")
	if err != nil {
		t.Fatal(err)
	}
	if apps.Spec.GroupPriorityMinimum != 17800 || apps.Spec.VersionPriority != 15 || apps.Labels[AutomanagedLabel] != "onstart" {
		t.Errorf("v1.apps: %+v, labels %v", apps.Spec, apps.Labels)
	}
	if len(apps.Status.Conditions) != 1 || apps.Status.Conditions[0].Reason != "Local" || apps.Status.Conditions[0].Status != apiregistrationv1.ConditionTrue {
		t.Errorf("v1.apps status: %+v", apps.Status)
	}
	if _, err := get(t, env, "v1.apiregistration.k8s.io"); !apierrors.IsNotFound(err) {
		t.Errorf("v1.apiregistration.k8s.io: %v, want none", err)
	}

	// A changed priority is put back.
	apps.Spec.VersionPriority = 3
	if _, err := env.API.Apply(ctx, apps, "user"); err != nil {
		t.Fatal(err)
	}
	// A custom group version appears, then goes with its definition.
	custom := &registry.Resource{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Custom: &registry.Custom{}}
	if err := reg.SetCustom([]*registry.Resource{custom}); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if apps, _ := get(t, env, "v1.apps"); apps == nil || apps.Spec.VersionPriority != 15 {
		t.Errorf("v1.apps not restored: %+v", apps)
	}
	w, err := get(t, env, "v1.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if w.Spec.GroupPriorityMinimum != 1000 || w.Spec.VersionPriority != 100 || w.Labels[AutomanagedLabel] != "true" {
		t.Errorf("v1.example.com: %+v, labels %v", w.Spec, w.Labels)
	}
	if err := reg.SetCustom(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, env, "v1.example.com"); !apierrors.IsNotFound(err) {
		t.Errorf("v1.example.com after its definition went: %v, want not found", err)
	}
	// Built-in ones stay.
	if _, err := get(t, env, "v1."); err != nil {
		t.Errorf("v1.: %v", err)
	}
}
