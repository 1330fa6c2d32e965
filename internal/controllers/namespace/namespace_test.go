package namespace

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

func TestEnsureSystem(t *testing.T) {
	env := controllertest.New(t)
	c := New(env.Objects, env.API, slog.New(slog.DiscardHandler))
	for range 2 { // the second start finds them all
		if err := c.EnsureSystem(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range System {
		ns, err := env.Objects.GetNamespace(context.Background(), name)
		if err != nil {
			t.Fatalf("namespace %s: %v", name, err)
		}
		if ns.Labels[corev1.LabelMetadataName] != name {
			t.Errorf("namespace %s labels %v", name, ns.Labels)
		}
	}
}

func TestFinalizesTerminatingNamespaces(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	c := New(env.Objects, env.API, log)
	for _, obj := range []struct {
		name string
		ns   string
		hold bool
	}{{"a", "doomed", false}, {"held", "doomed", true}, {"other", "kept", false}} {
		if _, err := env.API.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obj.ns}}, "test"); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: obj.name, Namespace: obj.ns}}
		if obj.hold {
			cm.Finalizers = []string{"example.com/hold"}
		}
		if _, err := env.API.Create(ctx, cm, "test"); err != nil {
			t.Fatal(err)
		}
	}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	configmaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	if err := env.API.Remove(ctx, namespaces, "", "doomed"); err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)

	// Content without finalizers goes; the held object waits, and so
	// does the namespace.
	controllertest.Eventually(t, func() (bool, string) {
		_, err := env.Objects.Get(ctx, configmaps, "doomed", "a")
		return apierrors.IsNotFound(err), fmt.Sprintf("configmap a: %v", err)
	})
	held, err := env.Objects.Get(ctx, configmaps, "doomed", "held")
	if err != nil {
		t.Fatalf("held configmap: %v", err)
	}
	if held.(*corev1.ConfigMap).DeletionTimestamp == nil {
		t.Fatal("held configmap not marked for deletion")
	}
	ns, err := env.Objects.GetNamespace(ctx, "doomed")
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("namespace went before its content: %v %v", ns, err)
	}

	// Releasing the finalizer lets the object, then the namespace, go.
	cm := held.(*corev1.ConfigMap)
	cm.Finalizers = nil
	if _, err := env.API.Apply(ctx, cm, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		_, err := env.Objects.GetNamespace(ctx, "doomed")
		return apierrors.IsNotFound(err), fmt.Sprintf("namespace doomed: %v", err)
	})
	if _, err := env.Objects.Get(ctx, configmaps, "kept", "other"); err != nil {
		t.Errorf("content of another namespace: %v", err)
	}
}
