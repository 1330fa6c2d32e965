package bbolt

import (
	"context"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestCompactPurgesLog(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	start := fillKeys(t, s, "/p/", 100)
	if err := s.Compact(ctx, start+49); err != nil {
		t.Fatal(err)
	}
	first, count := logBounds(t, s)
	if first != start+50 || count != 50 {
		t.Fatalf("log starts at %d with %d entries, want %d with 50", first, count, start+50)
	}
}

// TestOpenFinishesCompaction: a crash between recording a compaction and
// purging the log leaves old entries, which the next Open removes.
func TestOpenFinishesCompaction(t *testing.T) {
	s, path := openTest(t, Options{})
	start := fillKeys(t, s, "/p/", 20)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err := rawUpdate(path, func(tx *bolt.Tx) error {
		m, err := readMeta(tx)
		if err != nil {
			return err
		}
		m.compacted = start + 9
		return writeMeta(tx, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if first, count := logBounds(t, s); first != start+10 || count != 10 {
		t.Fatalf("log starts at %d with %d entries, want %d with 10", first, count, start+10)
	}
}

func TestAutoCompaction(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		// want is the least compacted revision to wait for, given the
		// current revision after the writes.
		want func(current int64) int64
	}{
		{"retain revisions", Options{CompactInterval: 10 * time.Millisecond, CompactRetainRevisions: 5},
			func(current int64) int64 { return current - 5 }},
		{"previous tick", Options{CompactInterval: 10 * time.Millisecond},
			func(current int64) int64 { return current }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTest(t, tc.opts)
			fillKeys(t, s, "/a/", 30)
			current, _, _ := s.Revision(context.Background())
			deadline := time.Now().Add(10 * time.Second)
			for {
				_, compacted, _ := s.Revision(context.Background())
				if compacted == tc.want(current) {
					return
				}
				if compacted > tc.want(current) || time.Now().After(deadline) {
					t.Fatalf("compacted = %d, want %d", compacted, tc.want(current))
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

// logBounds returns the first revision in the log and the number of entries.
func logBounds(t *testing.T, s *Store) (first int64, count int) {
	t.Helper()
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(logBucket).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if count == 0 {
				first, _ = decodeRevKey(k)
			}
			count++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return first, count
}

// rawUpdate edits a closed store's file directly, for fault injection.
func rawUpdate(path string, fn func(tx *bolt.Tx) error) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(fn)
}
