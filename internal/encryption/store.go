package encryption

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/portcullis/portcullis/internal/storage"
)

// Get returns key's value decrypted.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	kv, err := s.inner.Get(ctx, key)
	if err != nil {
		return kv, err
	}
	return kv, s.current().fromStorage(ctx, &kv)
}

// List returns the values under prefix decrypted. Values that do not
// decrypt fail the list, which names each of their keys (up to
// storage.MaxCorruptInList), as in kube-apiserver: a list must not
// silently leave objects out.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	res, err := s.inner.List(ctx, prefix, opts)
	if err != nil {
		return res, err
	}
	st := s.current()
	var corrupt storage.CorruptListError
	for i := range res.KVs {
		if err := st.fromStorage(ctx, &res.KVs[i]); err != nil {
			if len(corrupt.Errs) == storage.MaxCorruptInList {
				corrupt.TooMany = true
				break
			}
			corrupt.Errs = append(corrupt.Errs, err.(*storage.CorruptError))
		}
	}
	if len(corrupt.Errs) > 0 {
		return storage.ListResult{}, &corrupt
	}
	return res, nil
}

// Create encrypts value and writes it.
func (s *Store) Create(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	stored, err := s.current().toStorage(ctx, key, value)
	if err != nil {
		return storage.KeyValue{}, err
	}
	kv, err := s.inner.Create(ctx, key, stored)
	kv.Value = value
	return kv, err
}

// Update encrypts value and writes it if key is still at expectedRevision.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (storage.KeyValue, error) {
	stored, err := s.current().toStorage(ctx, key, value)
	if err != nil {
		return storage.KeyValue{}, err
	}
	kv, err := s.inner.Update(ctx, key, stored, expectedRevision)
	kv.Value = value
	return kv, err
}

// Delete removes key and returns its last value decrypted. The value is
// gone even when it does not decrypt; the error (a *storage.CorruptError)
// then says so, which an unsafe delete of a corrupt object expects.
func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	prev, rev, err := s.inner.Delete(ctx, key, expectedRevision)
	if err != nil {
		return prev, rev, err
	}
	return prev, rev, s.current().fromStorage(ctx, &prev)
}

// Watch relays the inner store's events with their values decrypted. A
// value that does not decrypt ends the watch with an error naming its key.
func (s *Store) Watch(ctx context.Context, prefix string, revision int64) (<-chan storage.Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	in, err := s.inner.Watch(ctx, prefix, revision)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan storage.Event, cap(in))
	go func() {
		defer close(out)
		// Stop the inner watch when this one ends early (an error),
		// then drain it so its sender is never stuck.
		defer func() {
			cancel()
			for range in {
			}
		}()
		for ev := range in {
			if ev.Type != storage.EventError {
				if err := s.decryptEvent(ctx, &ev); err != nil {
					var corrupt *storage.CorruptError
					if ev.Type == storage.EventDelete && errors.As(err, &corrupt) {
						corrupt.Deleted = true
					}
					ev = storage.Event{Type: storage.EventError, Err: err}
				}
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			if ev.Type == storage.EventError {
				return
			}
		}
	}()
	return out, nil
}

func (s *Store) decryptEvent(ctx context.Context, ev *storage.Event) error {
	st := s.current()
	if err := st.fromStorage(ctx, &ev.KV); err != nil {
		return err
	}
	if ev.PrevKV != nil {
		prev := *ev.PrevKV
		if err := st.fromStorage(ctx, &prev); err != nil {
			return err
		}
		ev.PrevKV = &prev
	}
	return nil
}

// Compact passes through.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	return s.inner.Compact(ctx, revision)
}

// Revision passes through.
func (s *Store) Revision(ctx context.Context) (int64, int64, error) {
	return s.inner.Revision(ctx)
}

// Close stops the KMS plugins' connections and closes the inner store.
func (s *Store) Close() error {
	s.closeProviders()
	return s.inner.Close()
}

// fromStorage decrypts kv.Value in place and marks it stale when due; a
// value it cannot read gives a *storage.CorruptError.
func (st *state) fromStorage(ctx context.Context, kv *storage.KeyValue) error {
	t := st.target(kv.Key)
	if t == nil {
		// Not encrypted by this configuration; a value that was encrypted
		// under an earlier one must not pass for clear text.
		if strings.HasPrefix(string(kv.Value[:min(len(kv.Value), len(encryptedPrefix))]), encryptedPrefix) {
			return &storage.CorruptError{Key: kv.Key, Err: fmt.Errorf("no provider is configured for this resource, and the value is encrypted: %w", errUnconfigured)}
		}
		return nil
	}
	if t.err != nil {
		return &storage.CorruptError{Key: kv.Key, Err: t.err}
	}
	plain, stale, err := t.chain.FromStorage(ctx, t.resource, kv.Value, []byte(kv.Key))
	if err != nil {
		return &storage.CorruptError{Key: kv.Key, Err: err}
	}
	kv.Value, kv.Stale = plain, stale
	return nil
}

func (st *state) toStorage(ctx context.Context, key string, value []byte) ([]byte, error) {
	t := st.target(key)
	if t == nil {
		return value, nil
	}
	if t.err != nil {
		return nil, fmt.Errorf("unable to transform key %q: %w", key, t.err)
	}
	out, err := t.chain.ToStorage(ctx, t.resource, value, []byte(key))
	if err != nil {
		return nil, fmt.Errorf("unable to transform key %q: %w", key, err)
	}
	return out, nil
}
