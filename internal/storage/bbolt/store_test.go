package bbolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/storagetest"
)

// openTest opens a store in a temporary directory. On cleanup it checks the
// live store, closes it, and checks the file again as reopened, the way a
// restarted server would find it.
func openTest(t testing.TB, opts Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Check(); err != nil && !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Check: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		reopened, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer reopened.Close()
		if err := reopened.Check(); err != nil {
			t.Errorf("Check after reopen: %v", err)
		}
	})
	return s, path
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, _ := openTest(t, Options{})
		return s
	})
}

// TestConformanceSmallBatches runs the suite with one write per
// transaction, the other extreme of group commit.
func TestConformanceSmallBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: one fsync per write")
	}
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, _ := openTest(t, Options{MaxBatch: 1})
		return s
	})
}

func TestReopenKeepsState(t *testing.T) {
	ctx := context.Background()
	s, path := openTest(t, Options{})
	a, _ := s.Create(ctx, "/r/a", []byte("a1"))
	b, _ := s.Create(ctx, "/r/b", []byte("b1"))
	snap := b.ModRevision
	if _, err := s.Update(ctx, "/r/a", []byte("a2"), a.ModRevision); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(ctx, "/r/b", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx, a.ModRevision); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	cur, compacted, err := s.Revision(ctx)
	if err != nil || cur != snap+2 || compacted != a.ModRevision {
		t.Fatalf("Revision = %d, %d, %v; want %d, %d", cur, compacted, err, snap+2, a.ModRevision)
	}
	res, err := s.List(ctx, "/r/", storage.ListOptions{Revision: snap})
	if err != nil || len(res.KVs) != 2 || string(res.KVs[0].Value) != "a1" {
		t.Fatalf("List at %d after reopen = %+v, %v", snap, res, err)
	}
	ch, err := s.Watch(ctx, "/r/", snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []storage.EventType{storage.EventUpdate, storage.EventDelete} {
		if ev := <-ch; ev.Type != want {
			t.Fatalf("replayed event %+v, want type %d", ev, want)
		}
	}
	c, err := s.Create(ctx, "/r/c", nil)
	if err != nil || c.ModRevision != cur+1 {
		t.Fatalf("Create after reopen = %+v, %v; want revision %d", c, err, cur+1)
	}
}

func TestInvalidCalls(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{MaxValueSize: 10})
	long := string(make([]byte, maxKeySize+1))
	tests := []struct {
		name string
		op   func() error
		want error
	}{
		{"empty key", func() error { _, err := s.Create(ctx, "", nil); return err }, ErrInvalidKey},
		{"key too long", func() error { _, err := s.Create(ctx, long, nil); return err }, ErrInvalidKey},
		{"value too large", func() error { _, err := s.Create(ctx, "/k", make([]byte, 11)); return err }, ErrValueTooLarge},
		{"update value too large", func() error { _, err := s.Update(ctx, "/k", make([]byte, 11), 1); return err }, ErrValueTooLarge},
		{"negative limit", func() error {
			_, err := s.List(ctx, "/", storage.ListOptions{Limit: -1})
			return err
		}, ErrInvalidArgument},
		{"negative list revision", func() error {
			_, err := s.List(ctx, "/", storage.ListOptions{Revision: -1})
			return err
		}, ErrInvalidArgument},
		{"negative watch revision", func() error { _, err := s.Watch(ctx, "/", -1); return err }, ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.op(); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := s.Create(ctx, "/k", make([]byte, 10)); err != nil {
		t.Fatalf("Create at the size limit: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("options", func(t *testing.T) {
		_, err := Open(filepath.Join(t.TempDir(), "db"), Options{MaxBatch: -1, WatchBuffer: -2})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("err = %v, want ErrInvalidArgument", err)
		}
	})
	t.Run("locked", func(t *testing.T) {
		_, path := openTest(t, Options{})
		_, err := Open(path, Options{LockTimeout: 50 * time.Millisecond})
		if err == nil {
			t.Fatal("second Open of a locked file succeeded")
		}
	})
	t.Run("not a database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "db")
		if err := os.WriteFile(path, []byte("not a bbolt file, certainly not"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path, Options{}); err == nil {
			t.Fatal("Open of garbage succeeded")
		}
	})
}

// TestCloseWhileWriting closes the store under concurrent writers: every
// write either succeeds and survives, or fails with ErrClosed.
func TestCloseWhileWriting(t *testing.T) {
	s, path := openTest(t, Options{})
	type ack struct {
		key string
		rev int64
	}
	acks := make(chan ack, 10000)
	done := make(chan error, 16)
	for w := range 16 {
		go func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("/close/%02d/%05d", w, i)
				kv, err := s.Create(context.Background(), key, []byte("v"))
				if err != nil {
					done <- err
					return
				}
				acks <- ack{key, kv.ModRevision}
			}
		}()
	}
	for len(acks) < 100 {
		time.Sleep(time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 16 {
		if err := <-done; !errors.Is(err, storage.ErrClosed) {
			t.Fatalf("write during Close: %v", err)
		}
	}
	close(acks)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for a := range acks {
		kv, err := s.Get(context.Background(), a.key)
		if err != nil || kv.ModRevision != a.rev {
			t.Fatalf("acknowledged %s@%d: got %+v, %v", a.key, a.rev, kv, err)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d acknowledged writes", n)
	}
}
