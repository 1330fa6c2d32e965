package bbolt

import (
	"bytes"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// commitLoop is the only writer of keys: it drains queued writes into one
// transaction so that many writers share one fsync (group commit).
func (s *Store) commitLoop() {
	defer s.wg.Done()
	defer close(s.committerDone)
	// A write that meets a page past the end of a file truncated under the
	// store faults: make that a panic that apply recovers.
	debug.SetPanicOnFault(true)
	batch := make([]*op, 0, s.opts.MaxBatch)
	for {
		select {
		case <-s.stop:
			return
		case o := <-s.ops:
			batch = append(batch[:0], o)
		}
	drain:
		for len(batch) < s.opts.MaxBatch {
			select {
			case o := <-s.ops:
				batch = append(batch, o)
			default:
				break drain
			}
		}
		s.commit(batch)
		clear(batch)
	}
}

// commit applies batch in one transaction. Each write's precondition is
// checked against the state left by the writes before it, so one failure
// does not fail the others. Watchers hear of the writes before the writers
// do: a writer that starts a watch "from now" after its write returned must
// not see that write again.
func (s *Store) commit(batch []*op) {
	events, rev, err := s.apply(batch)
	if err != nil {
		for _, o := range batch {
			o.err = err
			close(o.done)
		}
		return
	}
	if len(events) > 0 {
		s.current.Store(rev)
		s.hub.publish(events, rev)
	}
	for _, o := range batch {
		close(o.done)
	}
}

// apply runs batch in a read-write transaction and commits it when any
// write succeeded. It returns the events of the successful writes and the
// new current revision; an error means nothing was written. A panic of
// bbolt on a damaged page fails the batch with ErrDamaged.
func (s *Store) apply(batch []*op) (events []storage.Event, rev int64, err error) {
	tx, err := s.db.Begin(true)
	if err != nil {
		return nil, 0, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			_ = tx.Rollback()
			events, rev, err = nil, 0, s.logDamage(damage("write", r))
		}
	}()
	m, err := readMeta(tx)
	if err != nil {
		return nil, 0, rollback(tx, err)
	}
	keys, log := tx.Bucket(keysBucket), tx.Bucket(logBucket)
	// The log only grows at its end: fill its pages.
	log.FillPercent = 0.95
	events = make([]storage.Event, 0, len(batch))
	for _, o := range batch {
		ev, err := applyOne(keys, log, o, m.current+1)
		if err != nil {
			return nil, 0, rollback(tx, err)
		}
		if o.err == nil {
			m.current++
			events = append(events, ev)
		}
	}
	if len(events) == 0 {
		// Every precondition failed: nothing to make durable.
		return nil, m.current, rollback(tx, nil)
	}
	if err := writeMeta(tx, m); err != nil {
		return nil, 0, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, 0, fmt.Errorf("commit: %w", err)
	}
	return events, m.current, nil
}

func rollback(tx *bolt.Tx, err error) error {
	if rerr := tx.Rollback(); rerr != nil && err == nil {
		return fmt.Errorf("rollback: %w", rerr)
	}
	return err
}

// applyOne writes o at revision rev. A failed precondition is o's own
// error, set on o.err; a returned error means the transaction is unusable.
func applyOne(keys, log *bolt.Bucket, o *op, rev int64) (storage.Event, error) {
	key := []byte(o.key)
	var cur record
	raw := keys.Get(key)
	if raw != nil {
		var err error
		if cur, err = decodeKeyRecord(raw); err != nil {
			o.err = err
			return storage.Event{}, nil
		}
	}
	switch {
	case o.kind == opCreate && raw != nil:
		o.err = storage.ErrKeyExists
	case o.kind != opCreate && raw == nil:
		o.err = storage.ErrNotFound
	case o.kind == opUpdate && cur.modRev != o.expected,
		o.kind == opDelete && o.expected != 0 && cur.modRev != o.expected:
		o.err = fmt.Errorf("%w: at revision %d", storage.ErrConflict, cur.modRev)
	}
	if o.err != nil {
		return storage.Event{}, nil
	}

	entry := logEntry{key: key, prev: cur}
	switch o.kind {
	case opCreate:
		entry.typ = storage.EventCreate
		entry.after = record{createRev: rev, modRev: rev, value: o.value}
	case opUpdate:
		entry.typ = storage.EventUpdate
		entry.after = record{createRev: cur.createRev, modRev: rev, value: o.value}
	case opDelete:
		entry.typ = storage.EventDelete
	}
	// The previous value aliases the database page that the writes below
	// may reuse: copy it first.
	entry.prev.value = bytes.Clone(entry.prev.value)
	if err := log.Put(revKey(rev), encodeLogEntry(entry)); err != nil {
		return storage.Event{}, fmt.Errorf("write log %d: %w", rev, err)
	}
	if entry.hasAfter() {
		if err := keys.Put(key, encodeKeyRecord(entry.after)); err != nil {
			return storage.Event{}, fmt.Errorf("write key %q: %w", o.key, err)
		}
	} else if err := keys.Delete(key); err != nil {
		return storage.Event{}, fmt.Errorf("delete key %q: %w", o.key, err)
	}

	o.rev = rev
	prev := storage.KeyValue{Key: o.key, Value: entry.prev.value, CreateRevision: cur.createRev, ModRevision: cur.modRev}
	switch o.kind {
	case opCreate:
		o.kv = storage.KeyValue{Key: o.key, Value: o.value, CreateRevision: rev, ModRevision: rev}
		return storage.Event{Type: storage.EventCreate, KV: o.kv}, nil
	case opUpdate:
		o.kv = storage.KeyValue{Key: o.key, Value: o.value, CreateRevision: cur.createRev, ModRevision: rev}
		return storage.Event{Type: storage.EventUpdate, KV: o.kv, PrevKV: &prev}, nil
	default:
		// The deleted value goes to the caller too, who may modify it.
		o.kv = prev
		o.kv.Value = bytes.Clone(prev.Value)
		kv := prev
		kv.ModRevision = rev
		return storage.Event{Type: storage.EventDelete, KV: kv, PrevKV: &prev}, nil
	}
}
