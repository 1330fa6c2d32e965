package memory

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/portcullis/portcullis/internal/storage"
)

// Options tune a Store; the zero value is usable.
type Options struct {
	// WatchBuffer is how many events may wait for a watcher that is not
	// reading; one more ends that watch with storage.ErrWatcherTooSlow.
	// Default 10000.
	WatchBuffer int
}

// Store is a storage.Store in memory. Safe for concurrent use.
type Store struct {
	buffer int

	mu        sync.RWMutex
	closed    bool
	rev       int64
	compacted int64
	// keys are every key with a retained version, sorted.
	keys []string
	// versions are each key's versions in revision order.
	versions map[string][]version
	// log is every event with a revision above compacted, in order.
	log      []storage.Event
	watchers map[*watcher]struct{}

	// stop is closed by Close; wg counts the watch goroutines it waits for.
	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// version is one value of a key; a delete is a tombstone.
type version struct {
	kv      storage.KeyValue
	deleted bool
}

var _ storage.Store = (*Store)(nil)

// New returns an empty store.
func New(opts Options) *Store {
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = 10000
	}
	return &Store{
		buffer:   opts.WatchBuffer,
		versions: map[string][]version{},
		watchers: map[*watcher]struct{}{},
		stop:     make(chan struct{}),
	}
}

// clone copies a value: callers may change what they pass and get.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return bytes.Clone(b)
}

// copyValues gives kvs copies of their values in one allocation: a list
// of a thousand values is then one copy, not a thousand. Each value's
// capacity ends at its length, so appending to one cannot overwrite the
// next.
func copyValues(kvs []storage.KeyValue) {
	n := 0
	for _, kv := range kvs {
		n += len(kv.Value)
	}
	buf := make([]byte, 0, n)
	for i := range kvs {
		if v := kvs[i].Value; v != nil {
			start := len(buf)
			buf = append(buf, v...)
			kvs[i].Value = buf[start:len(buf):len(buf)]
		}
	}
}

func cloneKV(kv storage.KeyValue) storage.KeyValue {
	kv.Value = clone(kv.Value)
	return kv
}

// live returns the current value of key, if it has one.
func (s *Store) live(key string) (storage.KeyValue, bool) {
	vs := s.versions[key]
	if len(vs) == 0 || vs[len(vs)-1].deleted {
		return storage.KeyValue{}, false
	}
	return vs[len(vs)-1].kv, true
}

// at returns key's value as of revision rev, if it had one.
func (s *Store) at(key string, rev int64) (storage.KeyValue, bool) {
	vs := s.versions[key]
	i, _ := slices.BinarySearchFunc(vs, rev+1, func(v version, r int64) int {
		switch {
		case v.kv.ModRevision < r:
			return -1
		case v.kv.ModRevision > r:
			return 1
		}
		return 0
	})
	if i == 0 || vs[i-1].deleted {
		return storage.KeyValue{}, false
	}
	return vs[i-1].kv, true
}

// Get implements storage.Store.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if err := ctx.Err(); err != nil {
		return storage.KeyValue{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return storage.KeyValue{}, storage.ErrClosed
	}
	kv, ok := s.live(key)
	if !ok {
		return storage.KeyValue{}, storage.ErrNotFound
	}
	return cloneKV(kv), nil
}

// List implements storage.Store.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if err := ctx.Err(); err != nil {
		return storage.ListResult{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return storage.ListResult{}, storage.ErrClosed
	}
	if opts.Revision < 0 || opts.Limit < 0 {
		return storage.ListResult{}, fmt.Errorf("list %q: %w: revision %d, limit %d", prefix, ErrInvalidArgument, opts.Revision, opts.Limit)
	}
	rev := opts.Revision
	switch {
	case rev == 0:
		rev = s.rev
	case rev > s.rev:
		return storage.ListResult{}, fmt.Errorf("list at revision %d, current %d: %w", rev, s.rev, storage.ErrFutureRevision)
	case rev < s.compacted:
		return storage.ListResult{}, fmt.Errorf("list at revision %d, compacted at %d: %w", rev, s.compacted, storage.ErrCompacted)
	}
	from := max(prefix, opts.StartKey)
	i, _ := slices.BinarySearch(s.keys, from)
	// Keys under prefix are contiguous: find their end to size the result.
	end := i + sort.Search(len(s.keys)-i, func(j int) bool { return !strings.HasPrefix(s.keys[i+j], prefix) })
	n := int64(end - i)
	if opts.Limit > 0 {
		n = min(n, opts.Limit)
	}
	res := storage.ListResult{Revision: rev, KVs: make([]storage.KeyValue, 0, n)}
	for ; i < end; i++ {
		kv, ok := s.at(s.keys[i], rev)
		if !ok {
			continue
		}
		if opts.Limit > 0 && int64(len(res.KVs)) >= opts.Limit {
			res.More = true
			res.Remaining++
			continue
		}
		res.KVs = append(res.KVs, kv)
	}
	copyValues(res.KVs)
	return res, nil
}

// Create implements storage.Store.
func (s *Store) Create(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	if err := ctx.Err(); err != nil {
		return storage.KeyValue{}, err
	}
	// Both copies are made before locking, to keep the writers' critical
	// section short.
	stored, ret := clone(value), clone(value)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storage.KeyValue{}, storage.ErrClosed
	}
	if _, ok := s.live(key); ok {
		return storage.KeyValue{}, storage.ErrKeyExists
	}
	s.rev++
	kv := storage.KeyValue{Key: key, Value: stored, CreateRevision: s.rev, ModRevision: s.rev}
	s.append(key, version{kv: kv}, storage.Event{Type: storage.EventCreate, KV: kv})
	kv.Value = ret
	return kv, nil
}

// Update implements storage.Store.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (storage.KeyValue, error) {
	if err := ctx.Err(); err != nil {
		return storage.KeyValue{}, err
	}
	stored, ret := clone(value), clone(value)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storage.KeyValue{}, storage.ErrClosed
	}
	prev, ok := s.live(key)
	if !ok {
		return storage.KeyValue{}, storage.ErrNotFound
	}
	if prev.ModRevision != expectedRevision {
		return storage.KeyValue{}, storage.ErrConflict
	}
	s.rev++
	kv := storage.KeyValue{Key: key, Value: stored, CreateRevision: prev.CreateRevision, ModRevision: s.rev}
	s.append(key, version{kv: kv}, storage.Event{Type: storage.EventUpdate, KV: kv, PrevKV: &prev})
	kv.Value = ret
	return kv, nil
}

// Delete implements storage.Store.
func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	if err := ctx.Err(); err != nil {
		return storage.KeyValue{}, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storage.KeyValue{}, 0, storage.ErrClosed
	}
	prev, ok := s.live(key)
	if !ok {
		return storage.KeyValue{}, 0, storage.ErrNotFound
	}
	if expectedRevision != 0 && prev.ModRevision != expectedRevision {
		return storage.KeyValue{}, 0, storage.ErrConflict
	}
	s.rev++
	tomb := prev
	tomb.ModRevision = s.rev
	s.append(key, version{kv: tomb, deleted: true}, storage.Event{Type: storage.EventDelete, KV: tomb, PrevKV: &prev})
	return cloneKV(prev), s.rev, nil
}

// append records a write of key at s.rev and hands its event to the
// watchers; s.mu is held.
func (s *Store) append(key string, v version, ev storage.Event) {
	vs, seen := s.versions[key]
	if !seen {
		i, _ := slices.BinarySearch(s.keys, key)
		s.keys = slices.Insert(s.keys, i, key)
	}
	s.versions[key] = append(vs, v)
	s.log = append(s.log, ev)
	for w := range s.watchers {
		if s.rev > w.after && strings.HasPrefix(key, w.prefix) && !w.enqueue(ev) {
			delete(s.watchers, w)
		}
	}
}

// Compact implements storage.Store.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return storage.ErrClosed
	}
	if revision > s.rev {
		return fmt.Errorf("compact at revision %d, current %d: %w", revision, s.rev, storage.ErrFutureRevision)
	}
	if revision <= s.compacted {
		return nil
	}
	s.compacted = revision
	// Reads at or above revision need each key's last version at or below
	// it, unless that is a tombstone, and everything after.
	keys := s.keys[:0]
	for _, key := range s.keys {
		vs := s.versions[key]
		i := 0
		for i+1 < len(vs) && vs[i+1].kv.ModRevision <= revision {
			i++
		}
		if vs[i].kv.ModRevision <= revision && vs[i].deleted {
			i++
		}
		if i == len(vs) {
			delete(s.versions, key)
			continue
		}
		s.versions[key] = slices.Clone(vs[i:])
		keys = append(keys, key)
	}
	clear(s.keys[len(keys):])
	s.keys = keys
	// A copy, so that the dropped events' values can be freed.
	s.log = slices.Clone(s.log[s.logIndex(revision):])
	return nil
}

// Revision implements storage.Store.
func (s *Store) Revision(ctx context.Context) (int64, int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, 0, storage.ErrClosed
	}
	return s.rev, s.compacted, nil
}

// Close implements storage.Store: it ends every watch and waits for
// their goroutines.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.stop)
		clear(s.watchers)
		s.mu.Unlock()
		// Outside the lock: a watch goroutine takes it to unregister.
		s.wg.Wait()
	})
	return nil
}
