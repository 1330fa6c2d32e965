package bbolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// maxCheckErrors stops a check of a badly broken file from drowning the
// first, most telling problems.
const maxCheckErrors = 50

// Check verifies the file: bbolt's own page-level check plus the invariants
// of this layout.
//
//   - meta holds the format, and 0 <= compacted <= current;
//   - the log holds exactly the revisions compacted+1..current (entries at
//     or below compacted may linger after an interrupted compaction);
//   - each entry decodes, is written at its own revision, and continues the
//     key's previous entry: a create follows a delete or nothing, an update
//     or delete starts from the state the previous entry left;
//   - each key decodes, 0 < createRev <= modRev <= current, and if its last
//     write is retained the log entry at modRev wrote exactly this record;
//   - the state the log leaves for each key is the state in the keys bucket.
//
// Check runs in a write transaction that it rolls back: bbolt's page check
// reads the freelist, which concurrent writers would change under it. It
// therefore holds up writes while it reads the whole file, and is for tests
// and recovery tools, not for a busy server.
func (s *Store) Check() error {
	if err := s.usable(context.Background()); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer tx.Rollback()
	var errs []error
	err = guard("check", func() error {
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		errs = append(errs, checkLayout(tx)...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("check: %w: %w", ErrCorrupt, errors.Join(errs...))
	}
	return nil
}

// keyState is what the log says a key holds after its last retained entry.
type keyState struct {
	present bool
	rec     record
}

type checker struct {
	errs []error
}

func (c *checker) fail(format string, args ...any) {
	if len(c.errs) < maxCheckErrors {
		c.errs = append(c.errs, fmt.Errorf(format, args...))
	}
}

func checkLayout(tx *bolt.Tx) []error {
	var c checker
	if err := checkBuckets(tx); err != nil {
		return []error{err}
	}
	m, err := readMeta(tx)
	if err != nil {
		return []error{err}
	}
	last := c.checkLog(tx, m)
	c.checkKeys(tx, m, last)
	return c.errs
}

func checkBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{keysBucket, logBucket, metaBucket} {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("bucket %s missing", name)
		}
	}
	if f := tx.Bucket(metaBucket).Get(formatKey); len(f) != 1 || f[0] != recordFormat {
		return fmt.Errorf("format %x, want %d", f, recordFormat)
	}
	return nil
}

// checkLog walks the retained log and returns the state it leaves per key.
func (c *checker) checkLog(tx *bolt.Tx, m meta) map[string]keyState {
	last := make(map[string]keyState)
	want := m.compacted + 1
	cur := tx.Bucket(logBucket).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		rev, err := decodeRevKey(k)
		if err != nil {
			c.fail("log key %x: %w", k, err)
			continue
		}
		if rev <= m.compacted {
			continue // left by an interrupted compaction; purged on open
		}
		if rev != want {
			c.fail("log jumps from %d to %d", want-1, rev)
		}
		want = rev + 1
		if rev > m.current {
			c.fail("log entry %d after the current revision %d", rev, m.current)
		}
		e, err := decodeLogEntry(v)
		if err != nil {
			c.fail("log entry %d: %w", rev, err)
			continue
		}
		key := string(e.key)
		before, known := last[key]
		switch e.typ {
		case storage.EventCreate:
			if e.after.createRev != rev || e.after.modRev != rev {
				c.fail("log entry %d creates %q at %d/%d", rev, key, e.after.createRev, e.after.modRev)
			}
			if known && before.present {
				c.fail("log entry %d creates %q, which exists since %d", rev, key, before.rec.modRev)
			}
		case storage.EventUpdate, storage.EventDelete:
			if e.typ == storage.EventUpdate && e.after.modRev != rev {
				c.fail("log entry %d updates %q to revision %d", rev, key, e.after.modRev)
			}
			if e.prev.modRev >= rev {
				c.fail("log entry %d changes %q from a later revision %d", rev, key, e.prev.modRev)
			}
			if known && (!before.present || !before.rec.equal(e.prev)) {
				c.fail("log entry %d changes %q from a state the log never left it in", rev, key)
			}
		}
		after := keyState{present: e.hasAfter(), rec: e.after}
		after.rec.value = bytes.Clone(after.rec.value)
		last[key] = after
	}
	if m.current > m.compacted && want != m.current+1 {
		c.fail("log ends at %d, current revision is %d", want-1, m.current)
	}
	return last
}

// checkKeys checks every key against meta, the log, and the state the log
// left it in.
func (c *checker) checkKeys(tx *bolt.Tx, m meta, last map[string]keyState) {
	log := tx.Bucket(logBucket)
	cur := tx.Bucket(keysBucket).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		key := string(k)
		r, err := decodeKeyRecord(v)
		if err != nil {
			c.fail("key %q: %w", key, err)
			delete(last, key)
			continue
		}
		if r.modRev > m.current {
			c.fail("key %q modified at %d, after the current revision %d", key, r.modRev, m.current)
		}
		if st, ok := last[key]; ok {
			if !st.present || !st.rec.equal(r) {
				c.fail("key %q differs from the state its log entries leave", key)
			}
			delete(last, key)
		}
		if r.modRev <= m.compacted {
			continue
		}
		raw := log.Get(revKey(r.modRev))
		if raw == nil {
			c.fail("key %q: log entry %d of its last write is missing", key, r.modRev)
			continue
		}
		e, err := decodeLogEntry(raw)
		if err != nil {
			continue // reported by checkLog
		}
		if string(e.key) != key || !e.hasAfter() || !e.after.equal(r) {
			c.fail("key %q: log entry %d did not write it", key, r.modRev)
		}
	}
	for key, st := range last {
		if st.present {
			c.fail("key %q is missing, its last log entry left it at %d", key, st.rec.modRev)
		}
	}
}
