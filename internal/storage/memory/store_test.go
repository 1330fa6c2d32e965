package memory

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

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

// next returns the next event on ch; the timeout only keeps a broken
// store from hanging the test.
func next(t *testing.T, ch <-chan storage.Event) (storage.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no event and the watch is not closed")
		return storage.Event{}, false
	}
}

// TestWatchTooSlow fills the queue of a watch nobody reads. The watch
// goroutine holds at most one queue's worth while blocked handing over,
// so 2*WatchBuffer+1 writes overflow it whatever the scheduling.
func TestWatchTooSlow(t *testing.T) {
	ctx := context.Background()
	const buffer = 3
	s := New(Options{WatchBuffer: buffer})
	t.Cleanup(func() { _ = s.Close() })
	ch, err := s.Watch(ctx, "/p/", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2*buffer + 1 {
		if _, err := s.Create(ctx, fmt.Sprintf("/p/%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	var want int64 = 1
	for {
		ev, ok := next(t, ch)
		if !ok {
			t.Fatal("watch closed without ErrWatcherTooSlow")
		}
		if ev.Type == storage.EventError {
			if !errors.Is(ev.Err, storage.ErrWatcherTooSlow) {
				t.Fatalf("watch ended with %v, want ErrWatcherTooSlow", ev.Err)
			}
			break
		}
		if ev.KV.ModRevision != want {
			t.Fatalf("event at revision %d, want %d", ev.KV.ModRevision, want)
		}
		want++
	}
	if ev, ok := next(t, ch); ok {
		t.Fatalf("event %+v after the error, want the channel closed", ev)
	}
	// The store goes on serving new watches.
	if _, err := s.Watch(ctx, "/p/", 0); err != nil {
		t.Fatal(err)
	}
}

// TestWatchFutureRevision starts a watch above the current revision: it
// sees only the writes after that revision.
func TestWatchFutureRevision(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	t.Cleanup(func() { _ = s.Close() })
	ch, err := s.Watch(ctx, "/p/", 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"/p/a", "/p/b", "/p/c"} {
		if _, err := s.Create(ctx, k, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	ev, _ := next(t, ch)
	if ev.Type != storage.EventCreate || ev.KV.Key != "/p/c" || ev.KV.ModRevision != 3 {
		t.Fatalf("first event %+v, want the create of /p/c at 3", ev)
	}
}

// TestWatchReplayDuringWrites starts watches from the beginning while a
// writer runs: each sees every revision once, in order, across the seam
// between replay and live events.
func TestWatchReplayDuringWrites(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	t.Cleanup(func() { _ = s.Close() })
	const before, during = 200, 800
	for i := range before {
		if _, err := s.Create(ctx, fmt.Sprintf("/p/b%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		for i := range during {
			if _, err := s.Create(ctx, fmt.Sprintf("/p/d%d", i), []byte("v")); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	var chans []<-chan storage.Event
	for range 4 {
		ch, err := s.Watch(ctx, "/p/", 1)
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, ch := range chans {
		for want := int64(2); want <= before+during; want++ {
			ev, ok := next(t, ch)
			if !ok || ev.Type != storage.EventCreate || ev.KV.ModRevision != want {
				t.Fatalf("event %+v (open %v), want the create at %d", ev, ok, want)
			}
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	t.Cleanup(func() { _ = s.Close() })
	tests := []struct {
		name string
		op   func() error
	}{
		{name: "list negative revision", op: func() error {
			_, err := s.List(ctx, "/p/", storage.ListOptions{Revision: -1})
			return err
		}},
		{name: "list negative limit", op: func() error {
			_, err := s.List(ctx, "/p/", storage.ListOptions{Limit: -1})
			return err
		}},
		{name: "watch negative revision", op: func() error {
			_, err := s.Watch(ctx, "/p/", -1)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.op(); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("got %v, want ErrInvalidArgument", err)
			}
		})
	}
}
