package storagetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/storage"
)

func testListPrefix(t *testing.T, s storage.Store) {
	for _, key := range []string{"/a/b/2", "/a/b", "/a/bc/1", "/a/b/1", "/a/b/x/y", "/a/c", "/a/b0", "/b/b/1"} {
		mustCreate(t, s, key, "v:"+key)
	}
	cur, _ := revision(t, s)
	tests := []struct {
		prefix string
		want   []string
	}{
		{"/a/b/", []string{"/a/b/1", "/a/b/2", "/a/b/x/y"}},
		{"/a/bc/", []string{"/a/bc/1"}},
		{"/a/", []string{"/a/b", "/a/b/1", "/a/b/2", "/a/b/x/y", "/a/b0", "/a/bc/1", "/a/c"}},
		{"/a/b/x/", []string{"/a/b/x/y"}},
		{"/nothing/", nil},
	}
	for _, tc := range tests {
		t.Run(tc.prefix, func(t *testing.T) {
			res := mustList(t, s, tc.prefix, storage.ListOptions{})
			if diff := cmp.Diff(tc.want, keysOf(res.KVs), cmpOpts...); diff != "" {
				t.Fatalf("keys (-want +got):\n%s", diff)
			}
			for _, got := range res.KVs {
				if string(got.Value) != "v:"+got.Key {
					t.Errorf("value of %s = %q", got.Key, got.Value)
				}
			}
			if res.Revision != cur || res.More || res.Remaining != 0 {
				t.Fatalf("Revision, More, Remaining = %d, %t, %d; want %d, false, 0", res.Revision, res.More, res.Remaining, cur)
			}
		})
	}
}

func testListEmpty(t *testing.T, s storage.Store) {
	res := mustList(t, s, "/empty/", storage.ListOptions{})
	cur, _ := revision(t, s)
	if len(res.KVs) != 0 || res.More || res.Remaining != 0 || res.Revision != cur {
		t.Fatalf("List of an empty prefix = %+v, want nothing at revision %d", res, cur)
	}
	res = mustList(t, s, "/empty/", storage.ListOptions{Revision: cur, Limit: 10})
	if len(res.KVs) != 0 || res.Revision != cur {
		t.Fatalf("List at revision %d = %+v", cur, res)
	}
}

// testListPastRevision reads one snapshot, then changes every key in every
// way, and checks that the snapshot is still served as it was.
func testListPastRevision(t *testing.T, s storage.Store) {
	a1 := mustCreate(t, s, "/p/a", "a1")
	b1 := mustCreate(t, s, "/p/b", "b1")
	d1 := mustCreate(t, s, "/p/d", "d1")
	snap := d1.ModRevision
	a2 := mustUpdate(t, s, "/p/a", "a2", a1.ModRevision)
	mustDelete(t, s, "/p/b", b1.ModRevision)
	c1 := mustCreate(t, s, "/p/c", "c1")
	_, d1del := mustDelete(t, s, "/p/d", 0)
	d2 := mustCreate(t, s, "/p/d", "d2")
	mustCreate(t, s, "/q/other", "x")
	before := a1.ModRevision - 1
	if before == 0 {
		before = -1 // revision 0 would mean "current"
	}

	tests := []struct {
		name string
		rev  int64
		want []storage.KeyValue
	}{
		{"before everything", before, nil},
		{"after first create", a1.ModRevision, []storage.KeyValue{a1}},
		{"snapshot", snap, []storage.KeyValue{a1, b1, d1}},
		{"after update", a2.ModRevision, []storage.KeyValue{a2, b1, d1}},
		{"after create c", c1.ModRevision, []storage.KeyValue{a2, c1, d1}},
		{"after delete d", d1del, []storage.KeyValue{a2, c1}},
		{"current", 0, []storage.KeyValue{a2, c1, d2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.rev < 0 {
				t.Skip("the store was empty before the first create")
			}
			_, compacted := revision(t, s)
			if tc.rev != 0 && tc.rev < compacted {
				t.Skipf("revision %d is below the store's initial compaction", tc.rev)
			}
			res := mustList(t, s, "/p/", storage.ListOptions{Revision: tc.rev})
			if diff := cmp.Diff(tc.want, res.KVs, cmpOpts...); diff != "" {
				t.Fatalf("List at %d (-want +got):\n%s", tc.rev, diff)
			}
			wantRev := tc.rev
			if wantRev == 0 {
				wantRev, _ = revision(t, s)
			}
			if res.Revision != wantRev {
				t.Fatalf("Revision = %d, want %d", res.Revision, wantRev)
			}
		})
	}
}

// testListPagination pages through a snapshot while the keys change under
// it; every page must come from the snapshot.
func testListPagination(t *testing.T, s storage.Store) {
	var want []storage.KeyValue
	for i := range 10 {
		want = append(want, mustCreate(t, s, fmt.Sprintf("/pg/k%02d", i), fmt.Sprintf("v%d", i)))
	}
	mustCreate(t, s, "/pg0/outside", "x")
	snap := want[len(want)-1].ModRevision

	first := mustList(t, s, "/pg/", storage.ListOptions{Limit: 3})
	if first.Revision < snap {
		t.Fatalf("first page revision %d < %d", first.Revision, snap)
	}
	snap = first.Revision

	// Change the keyspace in every way between pages.
	mustCreate(t, s, "/pg/k05a", "new")
	mustDelete(t, s, "/pg/k07", 0)
	mustUpdate(t, s, "/pg/k01", "changed", want[1].ModRevision)
	mustCreate(t, s, "/pg/k99", "new")

	type page struct {
		keys      []string
		more      bool
		remaining int64
	}
	wantPages := []page{
		{[]string{"/pg/k00", "/pg/k01", "/pg/k02"}, true, 7},
		{[]string{"/pg/k03", "/pg/k04", "/pg/k05"}, true, 4},
		{[]string{"/pg/k06", "/pg/k07", "/pg/k08"}, true, 1},
		{[]string{"/pg/k09"}, false, 0},
	}
	var got []storage.KeyValue
	res := first
	for i, wp := range wantPages {
		if i > 0 {
			next := res.KVs[len(res.KVs)-1].Key + "\x00"
			res = mustList(t, s, "/pg/", storage.ListOptions{Revision: snap, Limit: 3, StartKey: next})
		}
		gp := page{keysOf(res.KVs), res.More, res.Remaining}
		if diff := cmp.Diff(wp, gp, cmp.AllowUnexported(page{})); diff != "" {
			t.Fatalf("page %d (-want +got):\n%s", i, diff)
		}
		if res.Revision != snap {
			t.Fatalf("page %d revision = %d, want %d", i, res.Revision, snap)
		}
		got = append(got, res.KVs...)
	}
	if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
		t.Fatalf("paged snapshot (-want +got):\n%s", diff)
	}

	t.Run("start key inside the list", func(t *testing.T) {
		res := mustList(t, s, "/pg/", storage.ListOptions{Revision: snap, StartKey: "/pg/k08"})
		if diff := cmp.Diff([]string{"/pg/k08", "/pg/k09"}, keysOf(res.KVs)); diff != "" || res.More {
			t.Fatalf("keys (-want +got):\n%s more=%t", diff, res.More)
		}
	})
	t.Run("limit above count", func(t *testing.T) {
		res := mustList(t, s, "/pg/", storage.ListOptions{Limit: 100})
		if len(res.KVs) != 11 || res.More || res.Remaining != 0 {
			t.Fatalf("got %d keys, more=%t remaining=%d; want 11, false, 0", len(res.KVs), res.More, res.Remaining)
		}
	})
	t.Run("limit equal to count", func(t *testing.T) {
		res := mustList(t, s, "/pg/", storage.ListOptions{Limit: 11})
		if len(res.KVs) != 11 || res.More || res.Remaining != 0 {
			t.Fatalf("got %d keys, more=%t remaining=%d; want 11, false, 0", len(res.KVs), res.More, res.Remaining)
		}
	})
	t.Run("current revision", func(t *testing.T) {
		res := mustList(t, s, "/pg/", storage.ListOptions{Limit: 4, StartKey: "/pg/k05"})
		want := []string{"/pg/k05", "/pg/k05a", "/pg/k06", "/pg/k08"}
		if diff := cmp.Diff(want, keysOf(res.KVs)); diff != "" {
			t.Fatalf("keys (-want +got):\n%s", diff)
		}
		if !res.More || res.Remaining != 2 {
			t.Fatalf("more=%t remaining=%d; want true, 2", res.More, res.Remaining)
		}
	})
}

func testListFutureRevision(t *testing.T, s storage.Store) {
	mustCreate(t, s, "/f/a", "v")
	cur, _ := revision(t, s)
	_, err := s.List(context.Background(), "/f/", storage.ListOptions{Revision: cur + 1})
	wantErr(t, "List at a future revision", err, storage.ErrFutureRevision)
	res := mustList(t, s, "/f/", storage.ListOptions{Revision: cur})
	if len(res.KVs) != 1 {
		t.Fatalf("List at the current revision = %+v", res)
	}
}
