package bbolt

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// Get implements storage.Store.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if err := s.usable(ctx); err != nil {
		return storage.KeyValue{}, err
	}
	var kv storage.KeyValue
	err := s.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(keysBucket).Get([]byte(key))
		if raw == nil {
			return storage.ErrNotFound
		}
		r, err := decodeKeyRecord(raw)
		if err != nil {
			return err
		}
		kv = r.keyValue(key)
		return nil
	})
	if err != nil {
		return storage.KeyValue{}, fmt.Errorf("get %q: %w", key, err)
	}
	return kv, nil
}

// List implements storage.Store. The current state is read from the keys
// bucket; a past revision is served by overlaying, for every key changed
// since, the state its first later log entry says it had before.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if err := s.usable(ctx); err != nil {
		return storage.ListResult{}, err
	}
	if opts.Revision < 0 || opts.Limit < 0 {
		return storage.ListResult{}, fmt.Errorf("list %q: %w: revision %d, limit %d", prefix, ErrInvalidArgument, opts.Revision, opts.Limit)
	}
	var res storage.ListResult
	err := s.view(func(tx *bolt.Tx) error {
		m, err := readMeta(tx)
		if err != nil {
			return err
		}
		at := opts.Revision
		switch {
		case at == 0:
			at = m.current
		case at > m.current:
			return fmt.Errorf("%w: %d is after the current revision %d", storage.ErrFutureRevision, at, m.current)
		case at < m.compacted:
			return fmt.Errorf("%w: %d is before the compacted revision %d", storage.ErrCompacted, at, m.compacted)
		}
		start := max(prefix, opts.StartKey)
		var past map[string]*record
		if at < m.current {
			if past, err = pastStates(tx, prefix, start, at); err != nil {
				return err
			}
		}
		res, err = listAt(tx, prefix, start, opts.Limit, past)
		res.Revision = at
		return err
	})
	if err != nil {
		return storage.ListResult{}, fmt.Errorf("list %q: %w", prefix, err)
	}
	return res, nil
}

// pastStates returns, for each key from start under prefix changed after
// revision at, its state at that revision (nil if it did not exist then).
func pastStates(tx *bolt.Tx, prefix, start string, at int64) (map[string]*record, error) {
	past := make(map[string]*record)
	c := tx.Bucket(logBucket).Cursor()
	for k, v := c.Seek(revKey(at + 1)); k != nil; k, v = c.Next() {
		e, err := decodeLogEntry(v)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(e.key, []byte(prefix)) || string(e.key) < start {
			continue
		}
		key := string(e.key)
		if _, seen := past[key]; seen {
			continue // an earlier change already told the state at "at"
		}
		if e.typ == storage.EventCreate {
			past[key] = nil
			continue
		}
		prev := e.prev
		prev.value = bytes.Clone(prev.value)
		past[key] = &prev
	}
	return past, nil
}

// listAt merges the current keys with the past states that override them.
func listAt(tx *bolt.Tx, prefix, start string, limit int64, past map[string]*record) (storage.ListResult, error) {
	var res storage.ListResult
	// Keys past the limit are only counted, so they are not decoded.
	full := func() bool { return limit != 0 && int64(len(res.KVs)) >= limit }
	overridden := make([]string, 0, len(past))
	for key := range past {
		overridden = append(overridden, key)
	}
	slices.Sort(overridden)

	c := tx.Bucket(keysBucket).Cursor()
	k, v := c.Seek([]byte(start))
	for {
		live := k != nil && bytes.HasPrefix(k, []byte(prefix))
		if !live && len(overridden) == 0 {
			break
		}
		// Take the smaller of the next current key and the next overridden one.
		if len(overridden) > 0 && (!live || overridden[0] <= string(k)) {
			key := overridden[0]
			overridden = overridden[1:]
			switch r := past[key]; {
			case r == nil:
			case full():
				res.Remaining++
			default:
				res.KVs = append(res.KVs, r.keyValue(key))
			}
			if live && key == string(k) {
				k, v = c.Next()
			}
			continue
		}
		if full() {
			res.Remaining++
		} else {
			r, err := decodeKeyRecord(v)
			if err != nil {
				return res, fmt.Errorf("key %q: %w", k, err)
			}
			res.KVs = append(res.KVs, r.keyValue(string(k)))
		}
		k, v = c.Next()
	}
	res.More = res.Remaining > 0
	return res, nil
}
