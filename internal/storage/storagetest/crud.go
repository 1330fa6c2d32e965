package storagetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/storage"
)

func testCreate(t *testing.T, s storage.Store) {
	r0, _ := revision(t, s)
	got := mustCreate(t, s, "/registry/pods/default/a", "v1")
	want := kv("/registry/pods/default/a", "v1", r0+1, r0+1)
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Fatalf("Create (-want +got):\n%s", diff)
	}
	if cur, _ := revision(t, s); cur != r0+1 {
		t.Fatalf("revision after create = %d, want %d", cur, r0+1)
	}
	empty := mustCreate(t, s, "/registry/pods/default/empty", "")
	if len(empty.Value) != 0 || empty.ModRevision != r0+2 {
		t.Fatalf("Create with empty value = %+v", empty)
	}
}

func testGet(t *testing.T, s storage.Store) {
	created := mustCreate(t, s, "/g/a", "v1")
	mustCreate(t, s, "/g/a/child", "other")
	got, err := s.Get(context.Background(), "/g/a")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(created, got, cmpOpts...); diff != "" {
		t.Fatalf("Get (-want +got):\n%s", diff)
	}
	for _, key := range []string{"/g/b", "/g/", "/g", "/g/a/"} {
		_, err := s.Get(context.Background(), key)
		wantErr(t, "Get("+key+")", err, storage.ErrNotFound)
	}
}

func testUpdate(t *testing.T, s storage.Store) {
	created := mustCreate(t, s, "/u/a", "v1")
	updated := mustUpdate(t, s, "/u/a", "v2", created.ModRevision)
	want := kv("/u/a", "v2", created.CreateRevision, created.ModRevision+1)
	if diff := cmp.Diff(want, updated, cmpOpts...); diff != "" {
		t.Fatalf("Update (-want +got):\n%s", diff)
	}
	got, err := s.Get(context.Background(), "/u/a")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Fatalf("Get after update (-want +got):\n%s", diff)
	}
	again := mustUpdate(t, s, "/u/a", "v3", updated.ModRevision)
	if again.CreateRevision != created.CreateRevision || again.ModRevision != updated.ModRevision+1 {
		t.Fatalf("second Update = %+v", again)
	}
}

func testDelete(t *testing.T, s storage.Store) {
	created := mustCreate(t, s, "/d/a", "v1")
	updated := mustUpdate(t, s, "/d/a", "v2", created.ModRevision)
	prev, delRev := mustDelete(t, s, "/d/a", updated.ModRevision)
	if diff := cmp.Diff(updated, prev, cmpOpts...); diff != "" {
		t.Fatalf("Delete prev (-want +got):\n%s", diff)
	}
	if delRev != updated.ModRevision+1 {
		t.Fatalf("Delete revision = %d, want %d", delRev, updated.ModRevision+1)
	}
	_, err := s.Get(context.Background(), "/d/a")
	wantErr(t, "Get after delete", err, storage.ErrNotFound)

	// A key created again after a delete starts a new life.
	recreated := mustCreate(t, s, "/d/a", "v3")
	want := kv("/d/a", "v3", delRev+1, delRev+1)
	if diff := cmp.Diff(want, recreated, cmpOpts...); diff != "" {
		t.Fatalf("re-Create (-want +got):\n%s", diff)
	}
}

func testDeleteUnconditional(t *testing.T, s storage.Store) {
	created := mustCreate(t, s, "/d/a", "v1")
	updated := mustUpdate(t, s, "/d/a", "v2", created.ModRevision)
	prev, delRev := mustDelete(t, s, "/d/a", 0)
	if diff := cmp.Diff(updated, prev, cmpOpts...); diff != "" {
		t.Fatalf("Delete prev (-want +got):\n%s", diff)
	}
	if cur, _ := revision(t, s); delRev != cur {
		t.Fatalf("Delete revision = %d, current = %d", delRev, cur)
	}
	_, _, err := s.Delete(context.Background(), "/d/a", 0)
	wantErr(t, "second unconditional Delete", err, storage.ErrNotFound)
}

// testErrors checks every failing write: the right sentinel, no revision
// consumed, the stored value untouched.
func testErrors(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a := mustCreate(t, s, "/e/a", "v1")
	a = mustUpdate(t, s, "/e/a", "v2", a.ModRevision)
	tests := []struct {
		name string
		op   func() error
		want error
	}{
		{"create existing", func() error {
			_, err := s.Create(ctx, "/e/a", []byte("x"))
			return err
		}, storage.ErrKeyExists},
		{"get missing", func() error {
			_, err := s.Get(ctx, "/e/missing")
			return err
		}, storage.ErrNotFound},
		{"update missing", func() error {
			_, err := s.Update(ctx, "/e/missing", []byte("x"), a.ModRevision)
			return err
		}, storage.ErrNotFound},
		{"update stale revision", func() error {
			_, err := s.Update(ctx, "/e/a", []byte("x"), a.CreateRevision)
			return err
		}, storage.ErrConflict},
		{"update future revision", func() error {
			_, err := s.Update(ctx, "/e/a", []byte("x"), a.ModRevision+100)
			return err
		}, storage.ErrConflict},
		{"update revision zero", func() error {
			_, err := s.Update(ctx, "/e/a", []byte("x"), 0)
			return err
		}, storage.ErrConflict},
		{"delete missing", func() error {
			_, _, err := s.Delete(ctx, "/e/missing", 0)
			return err
		}, storage.ErrNotFound},
		{"delete missing guarded", func() error {
			_, _, err := s.Delete(ctx, "/e/missing", a.ModRevision)
			return err
		}, storage.ErrNotFound},
		{"delete stale revision", func() error {
			_, _, err := s.Delete(ctx, "/e/a", a.CreateRevision)
			return err
		}, storage.ErrConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := revision(t, s)
			wantErr(t, tc.name, tc.op(), tc.want)
			if after, _ := revision(t, s); after != before {
				t.Errorf("revision moved from %d to %d on a failed call", before, after)
			}
			got, err := s.Get(ctx, "/e/a")
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if diff := cmp.Diff(a, got, cmpOpts...); diff != "" {
				t.Errorf("stored value changed (-want +got):\n%s", diff)
			}
		})
	}
}

// testValuesAreCopied guards against aliasing: callers may reuse their
// buffers and may scribble on what they got back.
func testValuesAreCopied(t *testing.T, s storage.Store) {
	ctx := context.Background()
	buf := []byte("original")
	if _, err := s.Create(ctx, "/c/a", buf); err != nil {
		t.Fatalf("Create: %v", err)
	}
	copy(buf, "XXXXXXXX")
	got, err := s.Get(ctx, "/c/a")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if string(got.Value) != "original" {
		t.Fatalf("value changed through the caller's buffer: %q", got.Value)
	}
	copy(got.Value, "YYYYYYYY")
	list := mustList(t, s, "/c/", storage.ListOptions{})
	if len(list.KVs) != 1 || string(list.KVs[0].Value) != "original" {
		t.Fatalf("value changed through a returned buffer: %+v", list.KVs)
	}
}

func testCanceledContext(t *testing.T, s storage.Store) {
	a := mustCreate(t, s, "/x/a", "v1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before, _ := revision(t, s)
	tests := []struct {
		name string
		op   func() error
	}{
		{"get", func() error { _, err := s.Get(ctx, "/x/a"); return err }},
		{"list", func() error { _, err := s.List(ctx, "/x/", storage.ListOptions{}); return err }},
		{"create", func() error { _, err := s.Create(ctx, "/x/b", []byte("v")); return err }},
		{"update", func() error { _, err := s.Update(ctx, "/x/a", []byte("v"), a.ModRevision); return err }},
		{"delete", func() error { _, _, err := s.Delete(ctx, "/x/a", 0); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, tc.name, tc.op(), context.Canceled)
		})
	}
	if after, _ := revision(t, s); after != before {
		t.Fatalf("revision moved from %d to %d with a canceled context", before, after)
	}
	// A watch on a canceled context either fails at once or ends at once.
	if ch, err := s.Watch(ctx, "/x/", 0); err == nil {
		expectClosed(t, ch, context.Canceled)
	}
}
