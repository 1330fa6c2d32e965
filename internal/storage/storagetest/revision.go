package storagetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/storage"
)

func testCompact(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a := mustCreate(t, s, "/k/a", "a1")                  // r1
	a2 := mustUpdate(t, s, "/k/a", "a2", a.ModRevision)  // r2
	b := mustCreate(t, s, "/k/b", "b1")                  // r3
	_, delB := mustDelete(t, s, "/k/b", b.ModRevision)   // r4
	a3 := mustUpdate(t, s, "/k/a", "a3", a2.ModRevision) // r5

	if err := s.Compact(ctx, b.ModRevision); err != nil {
		t.Fatalf("Compact(%d): %v", b.ModRevision, err)
	}
	cur, compacted := revision(t, s)
	if cur != a3.ModRevision || compacted != b.ModRevision {
		t.Fatalf("Revision = %d, %d; want %d, %d", cur, compacted, a3.ModRevision, b.ModRevision)
	}

	tests := []struct {
		rev  int64
		want []storage.KeyValue
		err  error
	}{
		{rev: a2.ModRevision, err: storage.ErrCompacted},
		{rev: a.ModRevision, err: storage.ErrCompacted},
		{rev: b.ModRevision, want: []storage.KeyValue{a2, b}},
		{rev: delB, want: []storage.KeyValue{a2}},
		{rev: a3.ModRevision, want: []storage.KeyValue{a3}},
		{rev: 0, want: []storage.KeyValue{a3}},
	}
	for _, tc := range tests {
		t.Run(strconv.FormatInt(tc.rev, 10), func(t *testing.T) {
			res, err := s.List(ctx, "/k/", storage.ListOptions{Revision: tc.rev})
			if tc.err != nil {
				wantErr(t, "List", err, tc.err)
				return
			}
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if diff := cmp.Diff(tc.want, res.KVs, cmpOpts...); diff != "" {
				t.Fatalf("List (-want +got):\n%s", diff)
			}
		})
	}
	if got, err := s.Get(ctx, "/k/a"); err != nil || got.ModRevision != a3.ModRevision {
		t.Fatalf("Get after compaction = %+v, %v", got, err)
	}
	// History newer than the compaction is still replayed.
	ch := mustWatch(t, t.Context(), s, "/k/", b.ModRevision)
	for _, want := range []int64{delB, a3.ModRevision} {
		if ev := nextEvent(t, ch); ev.KV.ModRevision != want {
			t.Fatalf("event %s, want revision %d", describe(ev), want)
		}
	}
}

func testCompactBounds(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a := mustCreate(t, s, "/k/a", "a1")
	b := mustCreate(t, s, "/k/b", "b1")
	if err := s.Compact(ctx, b.ModRevision); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	tests := []struct {
		name string
		rev  int64
		err  error
	}{
		{"same revision again", b.ModRevision, nil},
		{"older revision", a.ModRevision, nil},
		{"future revision", b.ModRevision + 1, storage.ErrFutureRevision},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Compact(ctx, tc.rev)
			if tc.err == nil && err != nil {
				t.Fatalf("Compact(%d): %v", tc.rev, err)
			}
			if tc.err != nil {
				wantErr(t, "Compact", err, tc.err)
			}
			if _, compacted := revision(t, s); compacted != b.ModRevision {
				t.Fatalf("compacted = %d, want %d", compacted, b.ModRevision)
			}
		})
	}
	// Compacting everything still leaves the current state readable.
	res := mustList(t, s, "/k/", storage.ListOptions{Revision: b.ModRevision})
	if diff := cmp.Diff([]storage.KeyValue{a, b}, res.KVs, cmpOpts...); diff != "" {
		t.Fatalf("List at the compacted revision (-want +got):\n%s", diff)
	}
}

func testCloseStopsWatches(t *testing.T, s storage.Store) {
	r0 := startRevision(t, s)
	fromNow := mustWatch(t, context.Background(), s, "/cl/", 0)
	mustCreate(t, s, "/cl/a", "v")
	// Nobody reads this one: Close must end it even while it is blocked
	// handing over replayed history.
	replaying := mustWatch(t, context.Background(), s, "/cl/", r0)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	expectClosed(t, fromNow, storage.ErrClosed)
	expectClosed(t, replaying, storage.ErrClosed)
}

func testCloseRejectsWrites(t *testing.T, s storage.Store) {
	a := mustCreate(t, s, "/cl/a", "v")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		op   func() error
	}{
		{"create", func() error { _, err := s.Create(ctx, "/cl/b", []byte("v")); return err }},
		{"update", func() error { _, err := s.Update(ctx, "/cl/a", []byte("v"), a.ModRevision); return err }},
		{"delete", func() error { _, _, err := s.Delete(ctx, "/cl/a", 0); return err }},
		{"compact", func() error { return s.Compact(ctx, a.ModRevision) }},
		{"watch", func() error { _, err := s.Watch(ctx, "/cl/", 0); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, tc.name, tc.op(), storage.ErrClosed)
		})
	}
}

func testRevisionsIncreaseByOne(t *testing.T, s storage.Store) {
	ctx := context.Background()
	r0, _ := revision(t, s)
	want := r0
	step := func(name string, got int64) {
		t.Helper()
		want++
		if got != want {
			t.Fatalf("%s: revision %d, want %d", name, got, want)
		}
		if cur, _ := revision(t, s); cur != want {
			t.Fatalf("%s: current revision %d, want %d", name, cur, want)
		}
	}
	a := mustCreate(t, s, "/v/a", "1")
	step("create a", a.ModRevision)
	a = mustUpdate(t, s, "/v/a", "2", a.ModRevision)
	step("update a", a.ModRevision)
	b := mustCreate(t, s, "/v/b", "1")
	step("create b", b.ModRevision)
	if _, err := s.Update(ctx, "/v/b", []byte("x"), a.ModRevision); err == nil {
		t.Fatal("stale update succeeded")
	}
	if _, err := s.Create(ctx, "/v/b", []byte("x")); err == nil {
		t.Fatal("duplicate create succeeded")
	}
	_, rev := mustDelete(t, s, "/v/a", a.ModRevision)
	step("delete a", rev)
	_, rev = mustDelete(t, s, "/v/b", 0)
	step("delete b", rev)
	a = mustCreate(t, s, "/v/a", "3")
	step("create a again", a.ModRevision)
}

// testConcurrentCreates has many writers race; every write must succeed
// with its own revision and together they must fill the range exactly.
func testConcurrentCreates(t *testing.T, s storage.Store) {
	const writers, perWriter = 32, 8
	r0, _ := revision(t, s)
	revs := make([][]int64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				key := fmt.Sprintf("/cw/%02d/%d", w, i)
				got, err := s.Create(context.Background(), key, []byte(key))
				if err != nil {
					t.Errorf("Create(%s): %v", key, err)
					return
				}
				if got.CreateRevision != got.ModRevision {
					t.Errorf("Create(%s) = %+v", key, got)
				}
				revs[w] = append(revs[w], got.ModRevision)
			}
		})
	}
	wg.Wait()
	all := slices.Concat(revs...)
	slices.Sort(all)
	for i, rev := range all {
		if rev != r0+int64(i)+1 {
			t.Fatalf("revisions %v are not exactly %d..%d", all, r0+1, r0+writers*perWriter)
		}
	}
	for w := range revs {
		if !slices.IsSorted(revs[w]) {
			t.Fatalf("writer %d saw revisions go back: %v", w, revs[w])
		}
	}
	res := mustList(t, s, "/cw/", storage.ListOptions{})
	if len(res.KVs) != writers*perWriter || res.Revision != r0+writers*perWriter {
		t.Fatalf("List: %d keys at revision %d", len(res.KVs), res.Revision)
	}
}

// testConcurrentGuardedUpdates runs read-modify-write loops on one counter:
// the guard must let exactly one writer win each round.
func testConcurrentGuardedUpdates(t *testing.T, s storage.Store) {
	const writers, perWriter = 8, 5
	ctx := context.Background()
	mustCreate(t, s, "/counter", "0")
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for done := 0; done < perWriter; {
				cur, err := s.Get(ctx, "/counter")
				if err != nil {
					t.Errorf("Get: %v", err)
					return
				}
				n, _ := strconv.Atoi(string(cur.Value))
				_, err = s.Update(ctx, "/counter", []byte(strconv.Itoa(n+1)), cur.ModRevision)
				switch {
				case err == nil:
					done++
				case !isAny(err, []error{storage.ErrConflict}):
					t.Errorf("Update: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, "/counter")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if want := strconv.Itoa(writers * perWriter); string(got.Value) != want {
		t.Fatalf("counter = %s, want %s", got.Value, want)
	}
}
