package bbolt

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/portcullis/portcullis/internal/storage"
)

// TestWatcherTooSlow: a watcher that stops reading is ended with
// ErrWatcherTooSlow, while writers and other watchers carry on.
func TestWatcherTooSlow(t *testing.T) {
	ctx := t.Context()
	s, _ := openTest(t, Options{WatchBuffer: 4})
	slow, err := s.Watch(ctx, "/w/", 0)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := s.Watch(ctx, "/w/", 0)
	if err != nil {
		t.Fatal(err)
	}
	const writes = 20
	// The writer waits for the fast watcher after each write, so that it
	// never has more than one event queued however the goroutines are
	// scheduled, while the slow one, never read, overflows.
	seen := make(chan struct{})
	go func() {
		for ev := range fast {
			if ev.Type == storage.EventError {
				t.Errorf("fast watcher ended: %v", ev.Err)
				close(seen)
				return
			}
			seen <- struct{}{}
		}
	}()
	for i := range writes {
		if _, err := s.Create(ctx, fmt.Sprintf("/w/%02d", i), nil); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if _, ok := <-seen; !ok {
			t.Fatal("fast watcher did not see every write")
		}
	}
	// The slow watcher still hands over what it had taken from its queue
	// before the overflow (at most the queue's size), then learns it fell
	// behind.
	var evs []storage.Event
	for ev := range slow {
		evs = append(evs, ev)
	}
	if len(evs) == 0 || len(evs) > 4+1 {
		t.Fatalf("slow watcher got %d events, want at most 4 and the error", len(evs))
	}
	last := evs[len(evs)-1]
	if last.Type != storage.EventError || !errors.Is(last.Err, storage.ErrWatcherTooSlow) {
		t.Fatalf("slow watcher ended with %+v, want ErrWatcherTooSlow", last)
	}
}

// TestWatchReplayLongHistory replays more than one read chunk of history.
func TestWatchReplayLongHistory(t *testing.T) {
	ctx := t.Context()
	s, _ := openTest(t, Options{})
	// Watching from revision 0 would mean "from now": start at 1.
	if _, err := s.Create(ctx, "/~start", nil); err != nil {
		t.Fatal(err)
	}
	start := fillKeys(t, s, "/h/", 2*replayChunk+10)
	// Interleave other prefixes so that chunks hold few matching entries.
	fillKeys(t, s, "/other/", 100)
	ch, err := s.Watch(ctx, "/h/", start-1)
	if err != nil {
		t.Fatal(err)
	}
	prev := start - 1
	for i := range 2*replayChunk + 10 {
		var ev storage.Event
		select {
		case ev = <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("timed out after %d events", i)
		}
		if ev.Type != storage.EventCreate || ev.KV.ModRevision <= prev {
			t.Fatalf("event %+v after revision %d", ev, prev)
		}
		prev = ev.KV.ModRevision
	}
}

// TestWatchCompactedDuringReplay: history compacted away while a watch is
// still replaying ends that watch with ErrCompacted rather than a gap.
func TestWatchCompactedDuringReplay(t *testing.T) {
	ctx := t.Context()
	s, _ := openTest(t, Options{})
	// Watching from revision 0 would mean "from now": start at 1.
	if _, err := s.Create(ctx, "/~start", nil); err != nil {
		t.Fatal(err)
	}
	start := fillKeys(t, s, "/c/", 2*replayChunk)
	ch, err := s.Watch(ctx, "/c/", start-1)
	if err != nil {
		t.Fatal(err)
	}
	first := <-ch // the first chunk has been read
	cur, _, _ := s.Revision(ctx)
	if err := s.Compact(ctx, cur); err != nil {
		t.Fatal(err)
	}
	prev := first.KV.ModRevision
	for ev := range ch {
		if ev.Type == storage.EventError {
			if !errors.Is(ev.Err, storage.ErrCompacted) {
				t.Fatalf("watch ended with %v, want ErrCompacted", ev.Err)
			}
			return
		}
		if ev.KV.ModRevision != prev+1 {
			t.Fatalf("gap: %d after %d", ev.KV.ModRevision, prev)
		}
		prev = ev.KV.ModRevision
	}
	t.Fatal("watch closed without an error")
}

// fillKeys creates n keys under prefix with concurrent writers and returns
// the first revision they used.
func fillKeys(t testing.TB, s *Store, prefix string, n int) int64 {
	t.Helper()
	cur, _, _ := s.Revision(context.Background())
	errs := make(chan error, 16)
	for w := range 16 {
		go func() {
			var err error
			for i := w; i < n && err == nil; i += 16 {
				_, err = s.Create(context.Background(), fmt.Sprintf("%s%06d", prefix, i), []byte("value"))
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	return cur + 1
}

// TestWatcherEnqueue pins the committer's side of fan-out: filtering by
// prefix and revision, and overflow.
func TestWatcherEnqueue(t *testing.T) {
	ev := func(key string, rev int64) storage.Event {
		return storage.Event{Type: storage.EventCreate, KV: storage.KeyValue{Key: key, ModRevision: rev}}
	}
	batch := []storage.Event{ev("/a/b/1", 5), ev("/a/bc/1", 6), ev("/a/b/2", 7), ev("/a/b/3", 8)}
	tests := []struct {
		name     string
		after    int64
		limit    int
		want     []int64
		overflow bool
	}{
		{"all after", 0, 10, []int64{5, 7, 8}, false},
		{"skips revisions up to after", 5, 10, []int64{7, 8}, false},
		{"skips everything", 8, 10, nil, false},
		{"overflow drops the queue", 0, 2, nil, true},
		{"exactly full", 5, 2, []int64{7, 8}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &watcher{prefix: "/a/b/", after: tc.after, limit: tc.limit, wake: make(chan struct{}, 1)}
			if ok := w.enqueue(batch); ok == tc.overflow {
				t.Fatalf("enqueue = %t, want %t", ok, !tc.overflow)
			}
			evs, overflow := w.take()
			var got []int64
			for _, e := range evs {
				got = append(got, e.KV.ModRevision)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || overflow != tc.overflow {
				t.Fatalf("queued %v overflow %t, want %v %t", got, overflow, tc.want, tc.overflow)
			}
			if len(w.wake) != 1 && (len(tc.want) > 0 || tc.overflow) {
				t.Fatal("watcher not woken")
			}
		})
	}
}
