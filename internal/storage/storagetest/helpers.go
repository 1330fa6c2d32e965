package storagetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/portcullis/portcullis/internal/storage"
)

// waitTimeout bounds every wait for an event; generous because backends
// fsync and CI machines are slow, but short enough to fail a hung test.
const waitTimeout = 10 * time.Second

// quiet is how long a watch must stay silent to count as "no event".
const quiet = 100 * time.Millisecond

// cmpOpts treats nil and empty values alike and compares errors with errors.Is.
var cmpOpts = []cmp.Option{cmpopts.EquateEmpty(), cmpopts.EquateErrors()}

func kv(key, value string, create, mod int64) storage.KeyValue {
	return storage.KeyValue{Key: key, Value: []byte(value), CreateRevision: create, ModRevision: mod}
}

func revision(t testing.TB, s storage.Store) (current, compacted int64) {
	t.Helper()
	current, compacted, err := s.Revision(context.Background())
	if err != nil {
		t.Fatalf("Revision: %v", err)
	}
	return current, compacted
}

func mustCreate(t testing.TB, s storage.Store, key, value string) storage.KeyValue {
	t.Helper()
	got, err := s.Create(context.Background(), key, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
	return got
}

func mustUpdate(t testing.TB, s storage.Store, key, value string, rev int64) storage.KeyValue {
	t.Helper()
	got, err := s.Update(context.Background(), key, []byte(value), rev)
	if err != nil {
		t.Fatalf("Update(%q, %d): %v", key, rev, err)
	}
	return got
}

func mustDelete(t testing.TB, s storage.Store, key string, rev int64) (storage.KeyValue, int64) {
	t.Helper()
	prev, delRev, err := s.Delete(context.Background(), key, rev)
	if err != nil {
		t.Fatalf("Delete(%q, %d): %v", key, rev, err)
	}
	return prev, delRev
}

func mustList(t testing.TB, s storage.Store, prefix string, opts storage.ListOptions) storage.ListResult {
	t.Helper()
	res, err := s.List(context.Background(), prefix, opts)
	if err != nil {
		t.Fatalf("List(%q, %+v): %v", prefix, opts, err)
	}
	return res
}

func mustWatch(t testing.TB, ctx context.Context, s storage.Store, prefix string, rev int64) <-chan storage.Event {
	t.Helper()
	ch, err := s.Watch(ctx, prefix, rev)
	if err != nil {
		t.Fatalf("Watch(%q, %d): %v", prefix, rev, err)
	}
	return ch
}

// nextEvent returns the next event, failing the test on timeout or when the
// channel closes first.
func nextEvent(t testing.TB, ch <-chan storage.Event) storage.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed, want an event")
		}
		return ev
	case <-time.After(waitTimeout):
		t.Fatal("timed out waiting for a watch event")
	}
	return storage.Event{}
}

// nextEvents collects n events.
func nextEvents(t testing.TB, ch <-chan storage.Event, n int) []storage.Event {
	t.Helper()
	evs := make([]storage.Event, 0, n)
	for range n {
		evs = append(evs, nextEvent(t, ch))
	}
	return evs
}

func expectNoEvent(t testing.TB, ch <-chan storage.Event) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if ok {
			t.Fatalf("unexpected event %s", describe(ev))
		}
		t.Fatal("watch channel closed unexpectedly")
	case <-time.After(quiet):
	}
}

// expectClosed drains ch until it is closed. Ordinary events may still
// arrive first; an EventError is accepted only if it carries one of allowed.
func expectClosed(t testing.TB, ch <-chan storage.Event, allowed ...error) {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if ev.Type == storage.EventError && !isAny(ev.Err, allowed) {
				t.Fatalf("watch ended with unexpected error: %v", ev.Err)
			}
		case <-timeout:
			t.Fatal("timed out waiting for the watch channel to close")
		}
	}
}

func isAny(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", what, err, want)
	}
}

func describe(ev storage.Event) string {
	if ev.Type == storage.EventError {
		return fmt.Sprintf("error(%v)", ev.Err)
	}
	return fmt.Sprintf("%s %s@%d", typeName(ev.Type), ev.KV.Key, ev.KV.ModRevision)
}

func typeName(et storage.EventType) string {
	switch et {
	case storage.EventCreate:
		return "create"
	case storage.EventUpdate:
		return "update"
	case storage.EventDelete:
		return "delete"
	case storage.EventError:
		return "error"
	}
	return fmt.Sprintf("type(%d)", int(et))
}

func keysOf(kvs []storage.KeyValue) []string {
	keys := make([]string, len(kvs))
	for i, kv := range kvs {
		keys[i] = kv.Key
	}
	return keys
}

// startRevision returns a revision to replay a test's writes from. Watch
// treats revision 0 as "from now", so a store still at 0 first gets one
// write outside every prefix the tests use.
func startRevision(t testing.TB, s storage.Store) int64 {
	t.Helper()
	if cur, _ := revision(t, s); cur > 0 {
		return cur
	}
	return mustCreate(t, s, "/~start", "").ModRevision
}
