package bootstraprbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

func TestRun(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	if err := Run(ctx, env.Objects, env.API); err != nil {
		t.Fatal(err)
	}
	want := rbac.Bootstrap().Objects()
	for _, obj := range want {
		m, _ := meta.Accessor(obj)
		gvr, err := resourceOf(obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Objects.Get(ctx, gvr, m.GetNamespace(), m.GetName()); err != nil {
			t.Errorf("%s %s/%s not created: %v", gvr.Resource, m.GetNamespace(), m.GetName(), err)
		}
	}

	get := func(name string) *rbacv1.ClusterRole {
		t.Helper()
		obj, err := env.Objects.Get(ctx, rbacv1.SchemeGroupVersion.WithResource("clusterroles"), "", name)
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*rbacv1.ClusterRole)
	}
	// A stale role gets its rules back; a protected one is left alone.
	stale := get("system:discovery")
	wantURLs := urls(stale.Rules)
	stale.Rules = nil
	if _, err := env.API.Apply(ctx, stale, "test"); err != nil {
		t.Fatal(err)
	}
	protected := get("system:basic-user")
	protected.Annotations = map[string]string{"rbac.authorization.kubernetes.io/autoupdate": "false"}
	protected.Rules = nil
	if _, err := env.API.Apply(ctx, protected, "test"); err != nil {
		t.Fatal(err)
	}
	if err := Run(ctx, env.Objects, env.API); err != nil {
		t.Fatal(err)
	}
	// Missing rules come back broken down, one URL each, as in kube-apiserver.
	if got := urls(get("system:discovery").Rules); len(wantURLs) == 0 || !got.Equal(wantURLs) {
		t.Errorf("stale role allows %v after reconcile, want %v", sets.List(got), sets.List(wantURLs))
	}
	if got := get("system:basic-user").Rules; len(got) != 0 {
		t.Errorf("protected role reconciled: %v", got)
	}
}

func urls(rules []rbacv1.PolicyRule) sets.Set[string] {
	out := sets.New[string]()
	for _, r := range rules {
		out.Insert(r.NonResourceURLs...)
	}
	return out
}

func TestResourceOfRefusesOtherKinds(t *testing.T) {
	if _, err := resourceOf(&rbacv1.ClusterRoleList{}); err == nil {
		t.Error("a list is not a bootstrap object")
	}
}
