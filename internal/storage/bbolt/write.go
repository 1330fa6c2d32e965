package bbolt

import (
	"bytes"
	"context"
	"fmt"

	"github.com/portcullis/portcullis/internal/storage"
)

type opKind int

const (
	opCreate opKind = iota + 1
	opUpdate
	opDelete
)

// op is one write handed to the committer, which fills in the result and
// closes done.
type op struct {
	kind     opKind
	key      string
	value    []byte // owned by the store: copied from the caller
	expected int64

	kv   storage.KeyValue // created or updated value; deleted value for deletes
	rev  int64            // revision of the write
	err  error
	done chan struct{}
}

// Create implements storage.Store.
func (s *Store) Create(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	o := &op{kind: opCreate, key: key, value: value}
	if err := s.submit(ctx, o); err != nil {
		return storage.KeyValue{}, fmt.Errorf("create %q: %w", key, err)
	}
	// Hand back the caller's own bytes: the store's copy is shared with watchers.
	o.kv.Value = value
	return o.kv, nil
}

// Update implements storage.Store.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (storage.KeyValue, error) {
	o := &op{kind: opUpdate, key: key, value: value, expected: expectedRevision}
	if err := s.submit(ctx, o); err != nil {
		return storage.KeyValue{}, fmt.Errorf("update %q at revision %d: %w", key, expectedRevision, err)
	}
	o.kv.Value = value
	return o.kv, nil
}

// Delete implements storage.Store.
func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	o := &op{kind: opDelete, key: key, expected: expectedRevision}
	if err := s.submit(ctx, o); err != nil {
		return storage.KeyValue{}, 0, fmt.Errorf("delete %q at revision %d: %w", key, expectedRevision, err)
	}
	return o.kv, o.rev, nil
}

// submit queues o for the committer and waits until it is durable or has
// failed. The context is honoured only until the committer takes the write:
// after that the outcome is decided within one commit, and abandoning it
// would leave the caller not knowing whether it happened.
func (s *Store) submit(ctx context.Context, o *op) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(o.key) == 0 || len(o.key) > maxKeySize {
		return fmt.Errorf("%w: length %d", ErrInvalidKey, len(o.key))
	}
	if len(o.value) > s.opts.MaxValueSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrValueTooLarge, len(o.value), s.opts.MaxValueSize)
	}
	if o.kind != opDelete {
		// The caller may reuse its buffer; watchers must not see that.
		o.value = bytes.Clone(o.value)
		if o.value == nil {
			o.value = []byte{}
		}
	}
	o.done = make(chan struct{})
	select {
	case s.ops <- o:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stop:
		return storage.ErrClosed
	}
	select {
	case <-o.done:
		return o.err
	case <-s.committerDone:
		// The committer answers every write it took before exiting.
		select {
		case <-o.done:
			return o.err
		default:
			return storage.ErrClosed
		}
	}
}
