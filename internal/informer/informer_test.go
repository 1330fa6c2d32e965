package informer

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/bbolt"
)

type recorder struct {
	mu    sync.Mutex
	state map[string]string
}

func (r *recorder) Upsert(obj runtime.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cm := obj.(*corev1.ConfigMap)
	r.state[cm.Name] = cm.Data["v"]
}

func (r *recorder) Delete(obj runtime.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.state, obj.(*corev1.ConfigMap).Name)
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for k, v := range r.state {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func decodeJSON(_ *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	cm := &corev1.ConfigMap{}
	return cm, json.Unmarshal(kv.Value, cm)
}

func TestInformer(t *testing.T) {
	store, err := bbolt.Open(filepath.Join(t.TempDir(), "db"), bbolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	reg, _ := registry.New(registry.DefaultRoot, registry.Builtin())
	res, _ := reg.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	put := func(name, v string) {
		data, _ := json.Marshal(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v}})
		key := res.Key("default", name)
		if kv, err := store.Get(ctx, key); err == nil {
			_, err = store.Update(ctx, key, data, kv.ModRevision)
			if err != nil {
				t.Fatal(err)
			}
			return
		}
		if _, err := store.Create(ctx, key, data); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "1")
	put("b", "1")
	rec := &recorder{state: map[string]string{}}
	in := New(store, res, decodeJSON, rec, slog.New(slog.DiscardHandler))
	done := make(chan struct{})
	go func() { defer close(done); in.Run(ctx) }()
	<-in.Synced()
	if got := rec.String(); got != "a=1,b=1" {
		t.Fatalf("after sync: %s", got)
	}
	put("a", "2")
	put("c", "1")
	if _, _, err := store.Delete(ctx, res.Key("default", "b"), 0); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return rec.String() == "a=2,c=1" }, rec)

	cancel()
	<-done

	// A relist after missed changes reports the deletions too.
	if _, _, err := store.Delete(context.Background(), res.Key("default", "c"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := in.relist(context.Background()); err != nil || rec.String() != "a=2" {
		t.Errorf("relist: err %v state %s", err, rec)
	}
}

func eventually(t *testing.T, cond func() bool, rec *recorder) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("state %s", rec)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
