package informer

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage/bbolt"
)

func TestSet(t *testing.T) {
	store, err := bbolt.Open(filepath.Join(t.TempDir(), "db"), bbolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	reg, _ := registry.New(registry.DefaultRoot, registry.Builtin())
	res, _ := reg.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	ctx, cancel := context.WithCancel(context.Background())
	put := func(ns, name string) {
		data, _ := json.Marshal(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
		if _, err := store.Create(ctx, res.Key(ns, name), data); err != nil {
			t.Fatal(err)
		}
	}
	put("b", "x")
	put("a", "y")
	set := NewSet[*corev1.ConfigMap](store, res, decodeJSON, slog.New(slog.DiscardHandler))
	first, second := set.Subscribe(), set.Subscribe()
	done := make(chan struct{})
	go func() { defer close(done); set.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-set.Synced()
	names := func() string {
		var out []string
		for _, cm := range set.List() {
			out = append(out, cm.Namespace+"/"+cm.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(); got != "a/y,b/x" {
		t.Fatalf("after sync: %s, want the objects in key order", got)
	}
	// Both subscribers hear of the changes; signals coalesce.
	<-first
	<-second
	put("c", "z")
	<-first
	for names() != "a/y,b/x,c/z" {
		<-first
	}
	<-second
	if _, _, err := store.Delete(ctx, res.Key("a", "y"), 0); err != nil {
		t.Fatal(err)
	}
	for names() != "b/x,c/z" {
		<-first
	}
}
