package etcd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/portcullis/portcullis/internal/storage"
)

// compactRevKey is the key kube-apiserver's compactors coordinate on: its
// Version counts compactions, its value is the revision last compacted to.
const compactRevKey = "compact_rev_key"

// Store is a storage.Store over an etcd v3 cluster.
type Store struct {
	kv      clientv3.KV
	watcher clientv3.Watcher
	opts    Options
	// owned is the client Open made, closed by Close; nil for New.
	owned *clientv3.Client

	// ctx is cancelled by Close: it ends watches and the compactor.
	ctx    context.Context
	cancel context.CancelFunc
	closed atomic.Bool
	// mu orders starting a goroutine against Close's wait for them.
	mu   sync.Mutex
	wg   sync.WaitGroup
	once sync.Once

	// compacted is the highest compaction revision this store has learned of.
	compacted atomic.Int64
}

var _ storage.Store = (*Store)(nil)

// New returns a store over client's KV and Watcher (which may be wrapped,
// by namespace for example). Close does not close client. With
// opts.CompactInterval > 0 the compaction loop runs until Close.
func New(client *clientv3.Client, opts Options) *Store {
	return newStore(client.KV, client.Watcher, opts)
}

func newStore(kv clientv3.KV, w clientv3.Watcher, opts Options) *Store {
	s := &Store{kv: kv, watcher: w, opts: opts.withDefaults()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if s.opts.CompactInterval > 0 {
		s.spawn(func() { s.runCompactor(s.ctx, s.opts.CompactInterval) })
	}
	return s
}

// Close stops the compactor and every watch, waits for them, and closes
// the client if Open made it. It is idempotent.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		s.mu.Lock()
		s.closed.Store(true)
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()
		if s.owned != nil {
			if cerr := s.owned.Close(); cerr != nil && !errors.Is(cerr, context.Canceled) {
				err = fmt.Errorf("etcd store: closing the client: %w", cerr)
			}
		}
	})
	return err
}

// spawn runs f in a goroutine that Close waits for, unless the store is
// closed.
func (s *Store) spawn(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return false
	}
	s.wg.Go(f)
	return true
}

// fail wraps an etcd error with what was being done, mapping etcd's
// errors to the storage sentinels. A call cut short by Close reports
// ErrClosed.
func (s *Store) fail(ctx context.Context, what string, err error) error {
	err = clientv3.ContextError(ctx, err)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("etcd store: %s: %w", what, ctx.Err())
	case s.closed.Load():
		return fmt.Errorf("etcd store: %s: %w", what, storage.ErrClosed)
	case errors.Is(err, rpctypes.ErrCompacted):
		return fmt.Errorf("etcd store: %s: %w (%w)", what, storage.ErrCompacted, err)
	case errors.Is(err, rpctypes.ErrFutureRev):
		return fmt.Errorf("etcd store: %s: %w (%w)", what, storage.ErrFutureRevision, err)
	}
	return fmt.Errorf("etcd store: %s: %w", what, err)
}

func (s *Store) checkOpen(ctx context.Context, what string) error {
	if s.closed.Load() {
		return fmt.Errorf("etcd store: %s: %w", what, storage.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("etcd store: %s: %w", what, err)
	}
	return nil
}

func fromKV(kv *mvccpb.KeyValue) storage.KeyValue {
	return storage.KeyValue{
		Key:            string(kv.Key),
		Value:          kv.Value,
		CreateRevision: kv.CreateRevision,
		ModRevision:    kv.ModRevision,
	}
}

// Get returns the current value of key.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if err := s.checkOpen(ctx, "get "+key); err != nil {
		return storage.KeyValue{}, err
	}
	resp, err := s.kv.Get(ctx, key)
	if err != nil {
		return storage.KeyValue{}, s.fail(ctx, "get "+key, err)
	}
	if len(resp.Kvs) == 0 {
		return storage.KeyValue{}, fmt.Errorf("etcd store: get %s: %w", key, storage.ErrNotFound)
	}
	return fromKV(resp.Kvs[0]), nil
}

// List reads one page of the keys under prefix as of opts.Revision.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	what := "list " + prefix
	if err := s.checkOpen(ctx, what); err != nil {
		return storage.ListResult{}, err
	}
	if opts.Revision < 0 || opts.Limit < 0 {
		return storage.ListResult{}, fmt.Errorf("etcd store: %s: revision %d, limit %d: %w", what, opts.Revision, opts.Limit, ErrInvalidArgument)
	}
	start, end := prefix, clientv3.GetPrefixRangeEnd(prefix)
	if opts.StartKey > start {
		start = opts.StartKey
	}
	// A start key past the prefix's range would make etcd read from it to
	// the end of the key space; serve the empty page at the right revision
	// with a count-only read instead.
	ops := []clientv3.OpOption{clientv3.WithRange(end)}
	empty := end != "\x00" && start >= end
	if empty {
		start, ops = prefix, []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithCountOnly(), clientv3.WithLimit(1)}
	}
	if opts.Revision > 0 {
		ops = append(ops, clientv3.WithRev(opts.Revision))
	}
	if opts.Limit > 0 && !empty {
		ops = append(ops, clientv3.WithLimit(opts.Limit))
	}
	resp, err := s.kv.Get(ctx, start, ops...)
	if err != nil {
		return storage.ListResult{}, s.fail(ctx, what, err)
	}
	res := storage.ListResult{Revision: opts.Revision}
	if res.Revision == 0 {
		res.Revision = resp.Header.Revision
	}
	if empty {
		return res, nil
	}
	res.KVs = make([]storage.KeyValue, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		res.KVs[i] = fromKV(kv)
	}
	res.More = resp.More
	res.Remaining = max(resp.Count-int64(len(resp.Kvs)), 0)
	return res, nil
}

// Create writes key if it does not exist.
func (s *Store) Create(ctx context.Context, key string, value []byte) (storage.KeyValue, error) {
	what := "create " + key
	if err := s.checkOpen(ctx, what); err != nil {
		return storage.KeyValue{}, err
	}
	resp, err := s.kv.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value))).
		Commit()
	if err != nil {
		return storage.KeyValue{}, s.fail(ctx, what, err)
	}
	if !resp.Succeeded {
		return storage.KeyValue{}, fmt.Errorf("etcd store: %s: %w", what, storage.ErrKeyExists)
	}
	rev := resp.Header.Revision
	return storage.KeyValue{Key: key, Value: bytes.Clone(value), CreateRevision: rev, ModRevision: rev}, nil
}

// Update replaces key's value if its ModRevision is expectedRevision.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (storage.KeyValue, error) {
	what := "update " + key + " at " + strconv.FormatInt(expectedRevision, 10)
	if err := s.checkOpen(ctx, what); err != nil {
		return storage.KeyValue{}, err
	}
	if expectedRevision <= 0 {
		// ModRevision(key) = 0 would hold for a missing key and create it:
		// no revision matches, so only find out which error it is.
		return storage.KeyValue{}, s.missingOrConflict(ctx, what, key)
	}
	resp, err := s.kv.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision)).
		Then(clientv3.OpPut(key, string(value), clientv3.WithPrevKV())).
		Else(clientv3.OpGet(key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return storage.KeyValue{}, s.fail(ctx, what, err)
	}
	if !resp.Succeeded {
		return storage.KeyValue{}, conflictOrMissing(what, resp.Responses[0].GetResponseRange().Kvs)
	}
	rev := resp.Header.Revision
	created := rev
	if prev := resp.Responses[0].GetResponsePut().PrevKv; prev != nil {
		created = prev.CreateRevision
	}
	return storage.KeyValue{Key: key, Value: bytes.Clone(value), CreateRevision: created, ModRevision: rev}, nil
}

// Delete removes key, guarded by expectedRevision unless it is 0.
func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	what := "delete " + key
	if err := s.checkOpen(ctx, what); err != nil {
		return storage.KeyValue{}, 0, err
	}
	if expectedRevision < 0 {
		return storage.KeyValue{}, 0, fmt.Errorf("etcd store: %s: revision %d: %w", what, expectedRevision, ErrInvalidArgument)
	}
	del := clientv3.OpDelete(key, clientv3.WithPrevKV())
	txn := s.kv.Txn(ctx)
	if expectedRevision > 0 {
		txn = txn.If(clientv3.Compare(clientv3.ModRevision(key), "=", expectedRevision)).
			Then(del).
			Else(clientv3.OpGet(key, clientv3.WithKeysOnly()))
	} else {
		txn = txn.Then(del)
	}
	resp, err := txn.Commit()
	if err != nil {
		return storage.KeyValue{}, 0, s.fail(ctx, what, err)
	}
	if !resp.Succeeded {
		return storage.KeyValue{}, 0, conflictOrMissing(what, resp.Responses[0].GetResponseRange().Kvs)
	}
	deleted := resp.Responses[0].GetResponseDeleteRange()
	if len(deleted.PrevKvs) == 0 {
		// Deleting nothing does not advance etcd's revision.
		return storage.KeyValue{}, 0, fmt.Errorf("etcd store: %s: %w", what, storage.ErrNotFound)
	}
	return fromKV(deleted.PrevKvs[0]), resp.Header.Revision, nil
}

func (s *Store) missingOrConflict(ctx context.Context, what, key string) error {
	resp, err := s.kv.Get(ctx, key, clientv3.WithKeysOnly())
	if err != nil {
		return s.fail(ctx, what, err)
	}
	return conflictOrMissing(what, resp.Kvs)
}

func conflictOrMissing(what string, current []*mvccpb.KeyValue) error {
	if len(current) == 0 {
		return fmt.Errorf("etcd store: %s: %w", what, storage.ErrNotFound)
	}
	return fmt.Errorf("etcd store: %s: now at %d: %w", what, current[0].ModRevision, storage.ErrConflict)
}

// Compact discards etcd's history before revision. Compacting at or below
// an earlier compaction is not an error.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	what := "compact to " + strconv.FormatInt(revision, 10)
	if err := s.checkOpen(ctx, what); err != nil {
		return err
	}
	if revision <= 0 {
		return fmt.Errorf("etcd store: %s: %w", what, ErrInvalidArgument)
	}
	if _, err := s.kv.Compact(ctx, revision); err != nil {
		err = s.fail(ctx, what, err)
		if errors.Is(err, storage.ErrCompacted) {
			return nil
		}
		return err
	}
	s.noteCompacted(revision)
	return nil
}

func (s *Store) noteCompacted(rev int64) {
	for {
		cur := s.compacted.Load()
		if rev <= cur || s.compacted.CompareAndSwap(cur, rev) {
			return
		}
	}
}

// Revision returns etcd's current revision and the highest compaction
// this store knows of: its own, those its watches met, and the one
// kube-apiserver's compactors record in compact_rev_key.
func (s *Store) Revision(ctx context.Context) (current, compacted int64, err error) {
	if err := s.checkOpen(ctx, "revision"); err != nil {
		return 0, 0, err
	}
	resp, err := s.kv.Get(ctx, compactRevKey)
	if err != nil {
		return 0, 0, s.fail(ctx, "revision", err)
	}
	if len(resp.Kvs) == 1 {
		if rev, err := strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64); err == nil {
			s.noteCompacted(rev)
		}
	}
	return resp.Header.Revision, s.compacted.Load(), nil
}

// Check is kube-apiserver's etcd health probe, used for the "etcd" check
// of /livez and /readyz (kube-apiserver's readiness probe is the same
// request with its own timeout): a read of the health key. The caller's
// ctx bounds it (kube-apiserver gives it 2s).
func (s *Store) Check(ctx context.Context) error {
	if s.closed.Load() {
		return fmt.Errorf("error getting data from etcd: %w", storage.ErrClosed)
	}
	if _, err := s.kv.Get(ctx, s.opts.HealthKey); err != nil {
		return fmt.Errorf("error getting data from etcd: %w", clientv3.ContextError(ctx, err))
	}
	return nil
}
