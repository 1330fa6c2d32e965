package etcd

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/portcullis/portcullis/internal/storage"
)

// TestCompactProtocol plays kube-apiserver's protocol round by round with
// two replicas on one key space: the first CAS starts the clock without
// compacting, a replica that loses the CAS adopts the winner's clock and
// its compaction, and the winner compacts to the revision it saw the round
// before.
func TestCompactProtocol(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace()
	a, b := newTestStore(t, ns, Options{}), newTestStore(t, ns, Options{})
	key := ns + compactRevKey

	versionA, revA, err := a.compactStep(ctx, 0, 0)
	if err != nil || versionA != 1 {
		t.Fatalf("a's first round = %d, %d, %v; want version 1", versionA, revA, err)
	}
	assertCompactKey(t, key, 1, "0")

	versionB, _, err := b.compactStep(ctx, 0, 0)
	if err != nil || versionB != 1 {
		t.Fatalf("b's first round = %d, %v; want to lose the CAS and adopt version 1", versionB, err)
	}
	assertCompactKey(t, key, 1, "0")

	if _, err := a.Create(ctx, "/p/after", []byte("v")); err != nil {
		t.Fatal(err)
	}
	versionA, _, err = a.compactStep(ctx, versionA, revA)
	if err != nil || versionA != 2 {
		t.Fatalf("a's second round = %d, %v; want version 2", versionA, err)
	}
	assertCompactKey(t, key, 2, strconv.FormatInt(revA, 10))
	if _, compacted, _ := a.Revision(ctx); compacted != revA {
		t.Fatalf("a's compacted revision = %d, want %d", compacted, revA)
	}
	if _, err := a.List(ctx, "/p/", storage.ListOptions{Revision: revA - 1}); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("List below the compaction: %v, want ErrCompacted", err)
	}

	// b's clock is behind: it loses, learns version 2 and the compaction.
	versionB, _, err = b.compactStep(ctx, versionB, 0)
	if err != nil || versionB != 2 {
		t.Fatalf("b's second round = %d, %v; want version 2", versionB, err)
	}
	if got := b.compacted.Load(); got != revA {
		t.Fatalf("b learned compaction %d, want %d", got, revA)
	}
	assertCompactKey(t, key, 2, strconv.FormatInt(revA, 10))
}

func assertCompactKey(t *testing.T, key string, version int64, value string) {
	t.Helper()
	resp, err := shared.client.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || resp.Kvs[0].Version != version || string(resp.Kvs[0].Value) != value {
		t.Fatalf("%s = %v, want version %d value %q", key, resp.Kvs, version, value)
	}
}

// TestCompactLoop runs the loop with a short interval and waits for it to
// compact: compact_rev_key is first written with 0, then with a revision,
// which the store then reports as compacted.
func TestCompactLoop(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace()
	key := ns + compactRevKey
	wch := shared.client.Watch(ctx, key)
	s := newTestStore(t, ns, Options{CompactInterval: 10 * time.Millisecond, Logger: quietSlog()})
	var compactedTo int64
	for compactedTo == 0 {
		resp, ok := <-wch
		if !ok {
			t.Fatal("watch of compact_rev_key ended")
		}
		for _, ev := range resp.Events {
			if ev.Type != clientv3.EventTypePut {
				continue
			}
			rev, err := strconv.ParseInt(string(ev.Kv.Value), 10, 64)
			if err != nil {
				t.Fatalf("compact_rev_key = %q", ev.Kv.Value)
			}
			if rev > 0 {
				compactedTo = rev
			}
		}
	}
	// The key is written before etcd compacts: wait for the compaction.
	for {
		_, err := s.List(ctx, "/", storage.ListOptions{Revision: compactedTo - 1})
		if errors.Is(err, storage.ErrCompacted) {
			break
		}
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		select {
		case resp := <-wch:
			_ = resp // another round: try again
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
	if _, compacted, err := s.Revision(ctx); err != nil || compacted < compactedTo {
		t.Fatalf("Revision: compacted %d, %v; want >= %d", compacted, err, compactedTo)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
