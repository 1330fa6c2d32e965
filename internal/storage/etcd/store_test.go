package etcd

import (
	"context"
	"errors"
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		return newTestStore(t, "", Options{})
	})
}

// TestTwoStores puts two stores on one key space, as two replicas on one
// cluster: each sees the other's writes, guards and watches.
func TestTwoStores(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace()
	a, b := newTestStore(t, ns, Options{}), newTestStore(t, ns, Options{})

	watch, err := b.Watch(ctx, "/two/", 0)
	if err != nil {
		t.Fatal(err)
	}
	created, err := a.Create(ctx, "/two/k", []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, "/two/k"); err != nil || got.ModRevision != created.ModRevision {
		t.Fatalf("b.Get = %+v, %v; want revision %d", got, err, created.ModRevision)
	}
	if ev := <-watch; ev.Type != storage.EventCreate || ev.KV.ModRevision != created.ModRevision {
		t.Fatalf("b's watch saw %+v, want a's create", ev)
	}
	updated, err := b.Update(ctx, "/two/k", []byte("v2"), created.ModRevision)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, "/two/k", []byte("v3"), created.ModRevision); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a's stale update: %v, want ErrConflict", err)
	}
	if ev := <-watch; ev.Type != storage.EventUpdate || ev.KV.ModRevision != updated.ModRevision {
		t.Fatalf("b's watch saw %+v, want b's update", ev)
	}

	// A compaction made by one is seen by the other's watch at once.
	if err := a.Compact(ctx, updated.ModRevision); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Watch(ctx, "/two/", created.ModRevision); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("b.Watch below a's compaction: %v, want ErrCompacted", err)
	}
	if _, err := b.List(ctx, "/two/", storage.ListOptions{Revision: created.ModRevision}); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("b.List below a's compaction: %v, want ErrCompacted", err)
	}
}

// TestClosedStore covers the reads the suite does not: every method of a
// closed store gives ErrClosed.
func TestClosedStore(t *testing.T) {
	s := newTestStore(t, "", Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		op   func() error
	}{
		{"get", func() error { _, err := s.Get(ctx, "/k"); return err }},
		{"list", func() error { _, err := s.List(ctx, "/", storage.ListOptions{}); return err }},
		{"revision", func() error { _, _, err := s.Revision(ctx); return err }},
		{"check", func() error { return s.Check(ctx) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.op(); !errors.Is(err, storage.ErrClosed) {
				t.Fatalf("err = %v, want ErrClosed", err)
			}
		})
	}
}

func TestInvalidCalls(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t, "", Options{})
	tests := []struct {
		name string
		op   func() error
	}{
		{"negative limit", func() error { _, err := s.List(ctx, "/", storage.ListOptions{Limit: -1}); return err }},
		{"negative list revision", func() error { _, err := s.List(ctx, "/", storage.ListOptions{Revision: -1}); return err }},
		{"negative watch revision", func() error { _, err := s.Watch(ctx, "/", -1); return err }},
		{"negative delete revision", func() error { _, _, err := s.Delete(ctx, "/k", -1); return err }},
		{"compact to 0", func() error { return s.Compact(ctx, 0) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.op(); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
		})
	}
}

// TestListStartKeyPastPrefix: a start key beyond the prefix's range gives
// an empty last page at the list's revision, not keys from elsewhere.
func TestListStartKeyPastPrefix(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t, "", Options{})
	for _, k := range []string{"/a/1", "/b/1"} {
		if _, err := s.Create(ctx, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	cur, _, err := s.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.List(ctx, "/a/", storage.ListOptions{StartKey: "/a0", Limit: 5})
	if err != nil || len(res.KVs) != 0 || res.More || res.Remaining != 0 || res.Revision != cur {
		t.Fatalf("List = %+v, %v; want an empty page at %d", res, err, cur)
	}
}

// TestWatchFutureRevision: a watch from a revision not reached yet waits
// for it, as etcd's do.
func TestWatchFutureRevision(t *testing.T) {
	ctx := t.Context()
	s := newTestStore(t, "", Options{})
	cur, _, err := s.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Watch(ctx, "/f/", cur+1)
	if err != nil {
		t.Fatalf("Watch from a future revision: %v", err)
	}
	if _, err := s.Create(ctx, "/f/a", nil); err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(ctx, "/f/b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-ch; ev.KV.Key != "/f/b" || ev.KV.ModRevision != b.ModRevision {
		t.Fatalf("first event %+v, want /f/b@%d", ev, b.ModRevision)
	}
}
