package memory

import (
	"context"
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/storagetest"
)

func TestStore(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s := New(Options{})
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// TestListPastRevisionAfterCompact lists, after a compaction, a revision
// at which a key since deleted and one since updated had older values.
func TestListPastRevisionAfterCompact(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	a, _ := s.Create(ctx, "/p/a", []byte("a1"))
	b, _ := s.Create(ctx, "/p/b", []byte("b1"))
	if _, err := s.Update(ctx, "/p/b", []byte("b2"), b.ModRevision); err != nil {
		t.Fatal(err)
	}
	mid, _, _ := s.Revision(ctx)
	if _, _, err := s.Delete(ctx, "/p/a", a.ModRevision); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "/p/c", []byte("c1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx, mid); err != nil {
		t.Fatal(err)
	}
	res, err := s.List(ctx, "/p/", storage.ListOptions{Revision: mid})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range res.KVs {
		got[kv.Key] = string(kv.Value)
	}
	if len(got) != 2 || got["/p/a"] != "a1" || got["/p/b"] != "b2" {
		t.Fatalf("List at %d after compaction = %v, want a1 and b2", mid, got)
	}
	if _, err := s.List(ctx, "/p/", storage.ListOptions{Revision: mid - 1}); err == nil {
		t.Fatal("List below the compacted revision succeeded")
	}
	now, err := s.List(ctx, "/p/", storage.ListOptions{})
	if err != nil || len(now.KVs) != 2 || now.KVs[0].Key != "/p/b" || now.KVs[1].Key != "/p/c" {
		t.Fatalf("List now = %+v, %v; want b and c", now.KVs, err)
	}
}
