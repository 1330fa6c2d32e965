package storagetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/storage"
)

func testWatchFromNow(t *testing.T, s storage.Store) {
	mustCreate(t, s, "/w/old", "v")
	ch := mustWatch(t, t.Context(), s, "/w/", 0)
	created := mustCreate(t, s, "/w/new", "v")
	ev := nextEvent(t, ch)
	if ev.Type != storage.EventCreate || ev.KV.Key != "/w/new" || ev.KV.ModRevision != created.ModRevision {
		t.Fatalf("first event = %s, want create /w/new@%d", describe(ev), created.ModRevision)
	}
	expectNoEvent(t, ch)
}

// testWatchAfterOwnWrite: a write that has returned is in the past, so a
// watch "from now" started right after it must not report it, and a watch
// from the write's revision must start after it. Repeated, with a
// background writer, because the window for getting this wrong is small.
func testWatchAfterOwnWrite(t *testing.T, s storage.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			s.Create(ctx, fmt.Sprintf("/noise/%d", i), []byte("v"))
		}
	})
	for i := range 20 {
		written := mustCreate(t, s, fmt.Sprintf("/own/%d/a", i), "v")
		prefix := fmt.Sprintf("/own/%d/", i)
		fromNow := mustWatch(t, ctx, s, prefix, 0)
		fromRev := mustWatch(t, ctx, s, prefix, written.ModRevision)
		mustCreate(t, s, prefix+"b", "v")
		for _, ch := range []<-chan storage.Event{fromNow, fromRev} {
			if ev := nextEvent(t, ch); ev.KV.Key != prefix+"b" {
				t.Fatalf("round %d: first event %s, want create %sb", i, describe(ev), prefix)
			}
		}
	}
}

// testWatchReplay starts watches at several past revisions: each must
// replay exactly the later history, in order, then continue live.
func testWatchReplay(t *testing.T, s storage.Store) {
	r0 := startRevision(t, s)
	a := mustCreate(t, s, "/r/a", "a1")
	b := mustCreate(t, s, "/r/b", "b1")
	a = mustUpdate(t, s, "/r/a", "a2", a.ModRevision)
	_, delB := mustDelete(t, s, "/r/b", b.ModRevision)
	mustCreate(t, s, "/other/x", "x")
	c := mustCreate(t, s, "/r/c", "c1")
	history := []int64{a.CreateRevision, b.ModRevision, a.ModRevision, delB, c.ModRevision}

	for i, start := range append([]int64{r0}, history...) {
		t.Run(fmt.Sprintf("from %d", start), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			_, compacted := revision(t, s)
			if start < compacted {
				t.Skipf("revision %d is below the store's initial compaction", start)
			}
			ch := mustWatch(t, ctx, s, "/r/", start)
			want := history[i:]
			for _, rev := range want {
				if ev := nextEvent(t, ch); ev.KV.ModRevision != rev {
					t.Fatalf("event %s, want revision %d", describe(ev), rev)
				}
			}
			live := mustCreate(t, s, fmt.Sprintf("/r/live%d", i), "v")
			if ev := nextEvent(t, ch); ev.KV.ModRevision != live.ModRevision || ev.Type != storage.EventCreate {
				t.Fatalf("live event %s, want create@%d", describe(ev), live.ModRevision)
			}
			history = append(history, live.ModRevision)
		})
	}
}

func testWatchPrefix(t *testing.T, s storage.Store) {
	r0 := startRevision(t, s)
	live := mustWatch(t, t.Context(), s, "/a/b/", 0)
	for _, key := range []string{"/a/b/1", "/a/bc/1", "/a/b", "/a/b0", "/a/b/x/y", "/z/a/b/1", "/a/b/zz"} {
		mustCreate(t, s, key, "v")
	}
	// The last key matches, and events come in order, so exactly these
	// three events before it prove nothing else was let through.
	want := []string{"/a/b/1", "/a/b/x/y", "/a/b/zz"}
	replay := mustWatch(t, t.Context(), s, "/a/b/", r0)
	for name, ch := range map[string]<-chan storage.Event{"live": live, "replay": replay} {
		var got []string
		for _, ev := range nextEvents(t, ch, len(want)) {
			got = append(got, ev.KV.Key)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s watch keys (-want +got):\n%s", name, diff)
		}
	}
}

// testWatchEventShapes pins the exact content of each event type, as
// documented on storage.Event, both live and replayed.
func testWatchEventShapes(t *testing.T, s storage.Store) {
	r0 := startRevision(t, s)
	live := mustWatch(t, t.Context(), s, "/s/", 0)
	c := mustCreate(t, s, "/s/k", "v1")
	u := mustUpdate(t, s, "/s/k", "v2", c.ModRevision)
	_, d := mustDelete(t, s, "/s/k", u.ModRevision)
	c2 := mustCreate(t, s, "/s/k", "v3")

	want := []storage.Event{
		{Type: storage.EventCreate, KV: c},
		{Type: storage.EventUpdate, KV: u, PrevKV: &c},
		{Type: storage.EventDelete, KV: kv("/s/k", "v2", c.CreateRevision, d), PrevKV: &u},
		{Type: storage.EventCreate, KV: c2},
	}
	replay := mustWatch(t, t.Context(), s, "/s/", r0)
	for name, ch := range map[string]<-chan storage.Event{"live": live, "replay": replay} {
		got := nextEvents(t, ch, len(want))
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			t.Fatalf("%s events (-want +got):\n%s", name, diff)
		}
	}
}

func testWatchCompacted(t *testing.T, s storage.Store) {
	a := mustCreate(t, s, "/wc/a", "v1")
	a = mustUpdate(t, s, "/wc/a", "v2", a.ModRevision)
	b := mustCreate(t, s, "/wc/b", "v1")
	if err := s.Compact(context.Background(), a.ModRevision); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	_, err := s.Watch(t.Context(), "/wc/", a.ModRevision-1)
	wantErr(t, "Watch below the compacted revision", err, storage.ErrCompacted)

	ch := mustWatch(t, t.Context(), s, "/wc/", a.ModRevision)
	if ev := nextEvent(t, ch); ev.KV.ModRevision != b.ModRevision {
		t.Fatalf("event %s, want create@%d", describe(ev), b.ModRevision)
	}
}

// testWatchManyWatchers runs concurrent writers under many watchers, some
// started "from now" and some from an explicit revision.
func testWatchManyWatchers(t *testing.T, s storage.Store) {
	const watchers, writers, perWriter = 20, 4, 10
	r0 := startRevision(t, s)
	chans := make([]<-chan storage.Event, watchers)
	for i := range chans {
		start := int64(0)
		if i%2 == 1 {
			start = r0
		}
		chans[i] = mustWatch(t, t.Context(), s, "/m/", start)
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				key := fmt.Sprintf("/m/w%d/%d", w, i)
				if _, err := s.Create(context.Background(), key, []byte("v")); err != nil {
					t.Errorf("Create(%s): %v", key, err)
				}
			}
		})
	}
	wg.Wait()
	total := writers * perWriter
	for i, ch := range chans {
		evs := nextEvents(t, ch, total)
		for j, ev := range evs {
			if want := r0 + int64(j) + 1; ev.Type != storage.EventCreate || ev.KV.ModRevision != want {
				t.Fatalf("watcher %d event %d = %s, want create@%d", i, j, describe(ev), want)
			}
		}
	}
}

func testWatchContextCancel(t *testing.T, s storage.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := mustWatch(t, ctx, s, "/cc/", 0)
	mustCreate(t, s, "/cc/a", "v")
	cancel()
	expectClosed(t, ch, context.Canceled)
	// The store keeps working for others.
	other := mustWatch(t, t.Context(), s, "/cc/", 0)
	mustCreate(t, s, "/cc/b", "v")
	if ev := nextEvent(t, other); ev.KV.Key != "/cc/b" {
		t.Fatalf("event %s, want /cc/b", describe(ev))
	}
}
