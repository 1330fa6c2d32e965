package bbolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// purgeChunk bounds the log entries deleted per transaction, so that a big
// compaction holds the write lock only briefly at a time.
const purgeChunk = 10000

// Compact implements storage.Store. After Compact(rev), lists at rev and
// above and watches from rev and above still work: the log keeps every
// entry above rev, which is what undoing the current state back to rev and
// replaying changes after rev need. Compacting at or below the compacted
// revision does nothing.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	var changed bool
	err := s.update(func(tx *bolt.Tx) error {
		m, err := readMeta(tx)
		if err != nil {
			return err
		}
		if revision > m.current {
			return fmt.Errorf("%w: %d is after the current revision %d", storage.ErrFutureRevision, revision, m.current)
		}
		if revision <= m.compacted {
			return nil
		}
		m.compacted = revision
		changed = true
		return writeMeta(tx, m)
	})
	if err != nil {
		return fmt.Errorf("compact at %d: %w", revision, err)
	}
	if !changed {
		return nil
	}
	// From here on no reader uses the entries, so deleting them in several
	// transactions is safe, and finished by Open after a crash.
	s.compacted.Store(revision)
	if err := s.purgeLog(revision); err != nil {
		return fmt.Errorf("compact at %d: %w", revision, closedErr(err))
	}
	return nil
}

// purgeLog deletes the log entries up to revision, a chunk per transaction.
func (s *Store) purgeLog(revision int64) error {
	last := revKey(revision)
	for {
		var n int
		err := s.update(func(tx *bolt.Tx) error {
			b := tx.Bucket(logBucket)
			c := b.Cursor()
			var doomed [][]byte
			for k, _ := c.First(); k != nil && bytes.Compare(k, last) <= 0 && len(doomed) < purgeChunk; k, _ = c.Next() {
				doomed = append(doomed, bytes.Clone(k))
			}
			// Deleting while iterating can make a bbolt cursor skip keys.
			for _, k := range doomed {
				if err := b.Delete(k); err != nil {
					return fmt.Errorf("purge log: %w", err)
				}
			}
			n = len(doomed)
			return nil
		})
		if err != nil || n < purgeChunk {
			return err
		}
	}
}

// compactLoop compacts every CompactInterval until Close.
func (s *Store) compactLoop() {
	defer s.wg.Done()
	tick := time.NewTicker(s.opts.CompactInterval)
	defer tick.Stop()
	previous := s.current.Load() // the revision at the last tick
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		current := s.current.Load()
		target := previous
		if s.opts.CompactRetainRevisions > 0 {
			target = current - s.opts.CompactRetainRevisions
		}
		previous = current
		if target <= s.compacted.Load() {
			continue
		}
		err := s.Compact(context.Background(), target)
		if err != nil && !errors.Is(err, storage.ErrClosed) {
			s.opts.Logger.Error("automatic compaction failed", "revision", target, "err", err)
		}
	}
}
