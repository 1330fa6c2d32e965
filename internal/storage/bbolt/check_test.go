package bbolt

import (
	"context"
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// TestCheckFindsDamage breaks a closed store's file in one way per case
// and expects Check on the reopened store to name the damage.
func TestCheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(tx *bolt.Tx, revs map[string]int64) error
		want   string
	}{
		{"log gap", func(tx *bolt.Tx, revs map[string]int64) error {
			return tx.Bucket(logBucket).Delete(revKey(revs["update"]))
		}, "log jumps"},
		{"log entry of a live key missing", func(tx *bolt.Tx, revs map[string]int64) error {
			return tx.Bucket(logBucket).Delete(revKey(revs["last"]))
		}, "log ends"},
		{"key record garbled", func(tx *bolt.Tx, revs map[string]int64) error {
			return tx.Bucket(keysBucket).Put([]byte("/d/a"), []byte{recordFormat, 0xff})
		}, "key \"/d/a\""},
		{"key changed behind the log", func(tx *bolt.Tx, revs map[string]int64) error {
			return tx.Bucket(keysBucket).Put([]byte("/d/a"), encodeKeyRecord(record{createRev: 1, modRev: revs["update"], value: []byte("forged")}))
		}, "differs from the state"},
		{"deleted key back", func(tx *bolt.Tx, revs map[string]int64) error {
			return tx.Bucket(keysBucket).Put([]byte("/d/b"), encodeKeyRecord(record{createRev: 2, modRev: 2, value: []byte("b")}))
		}, "\"/d/b\""},
		{"live key lost", func(tx *bolt.Tx, revs map[string]int64) error {
			return tx.Bucket(keysBucket).Delete([]byte("/d/c"))
		}, "\"/d/c\" is missing"},
		{"current revision behind", func(tx *bolt.Tx, revs map[string]int64) error {
			m, err := readMeta(tx)
			if err != nil {
				return err
			}
			m.current--
			return writeMeta(tx, m)
		}, "after the current revision"},
		{"log entry of another key", func(tx *bolt.Tx, revs map[string]int64) error {
			e := logEntry{typ: storage.EventCreate, key: []byte("/d/zz"), after: record{createRev: revs["last"], modRev: revs["last"], value: []byte("c")}}
			return tx.Bucket(logBucket).Put(revKey(revs["last"]), encodeLogEntry(e))
		}, "did not write it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, path, revs := damagedStoreFixture(t)
			if err := s.Check(); err != nil {
				t.Fatalf("Check before damage: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := rawUpdate(path, func(tx *bolt.Tx) error { return tc.damage(tx, revs) }); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path, Options{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			err = s.Check()
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want ErrCorrupt mentioning %q", err, tc.want)
			}
		})
	}
}

// damagedStoreFixture writes a little history to damage. It does not use
// openTest, whose cleanup would fail on the damage.
func damagedStoreFixture(t *testing.T) (*Store, string, map[string]int64) {
	path := t.TempDir() + "/store.db"
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	revs := map[string]int64{}
	a, _ := s.Create(ctx, "/d/a", []byte("a")) // 1
	b, _ := s.Create(ctx, "/d/b", []byte("b")) // 2
	a, _ = s.Update(ctx, "/d/a", []byte("a2"), a.ModRevision)
	revs["update"] = a.ModRevision // 3
	s.Delete(ctx, "/d/b", b.ModRevision)
	c, err := s.Create(ctx, "/d/c", []byte("c"))
	if err != nil || c.ModRevision != 5 {
		t.Fatalf("fixture: %+v, %v", c, err)
	}
	revs["last"] = c.ModRevision
	return s, path, revs
}
