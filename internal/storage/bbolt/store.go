package bbolt

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/portcullis/portcullis/internal/storage"
)

// Store is a storage.Store in one bbolt file.
type Store struct {
	db   *bolt.DB
	opts Options

	ops           chan *op      // writes waiting for the committer
	stop          chan struct{} // closed by Close: every goroutine winds down
	committerDone chan struct{} // closed when the committer has exited
	wg            sync.WaitGroup
	hub           hub

	// current and compacted mirror the meta bucket after each commit, for
	// callers that need no transaction.
	current   atomic.Int64
	compacted atomic.Int64
	compactMu sync.Mutex // one compaction at a time

	closeOnce sync.Once
	closeErr  error
}

var _ storage.Store = (*Store)(nil)

// Open opens the store in the file at path, or creates it when there is
// no file, and starts its committer and, if configured, its compaction
// loop; Close stops them. A file that is empty, not bbolt's, damaged or
// not a store is refused with ErrEmptyFile, ErrNotBolt, ErrDamaged or
// ErrNotStore: see "Damaged files" in the package documentation.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	db, err := openFile(path, opts)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	var m meta
	err = guard("open", func() error {
		return db.View(func(tx *bolt.Tx) (err error) {
			m, err = loadLayout(tx)
			return err
		})
	})
	if errors.Is(err, errNoLayout) {
		err = guard("open", func() error { return db.Update(initLayout) })
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open %s: %w", path, err), db.Close())
	}
	s := &Store{
		db:            db,
		opts:          opts,
		ops:           make(chan *op, opts.MaxBatch),
		stop:          make(chan struct{}),
		committerDone: make(chan struct{}),
		hub:           hub{rev: m.current, watchers: make(map[*watcher]struct{})},
	}
	s.current.Store(m.current)
	s.compacted.Store(m.compacted)
	// A compaction interrupted by a crash may have left old log entries.
	if err := s.purgeLog(m.compacted); err != nil {
		return nil, errors.Join(fmt.Errorf("open %s: %w", path, err), db.Close())
	}
	s.wg.Add(1)
	go s.commitLoop()
	if opts.CompactInterval > 0 {
		s.wg.Add(1)
		go s.compactLoop()
	}
	return s, nil
}

// Close stops the committer, every watch and the compaction loop, then
// closes the file. Writes queued but not yet committed fail with
// storage.ErrClosed. Calling Close again returns the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.hub.close()
		s.wg.Wait()
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

// Revision implements storage.Store.
func (s *Store) Revision(ctx context.Context) (current, compacted int64, err error) {
	if err := s.usable(ctx); err != nil {
		return 0, 0, err
	}
	return s.current.Load(), s.compacted.Load(), nil
}

// usable rejects calls on a done context or a closed store.
func (s *Store) usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-s.stop:
		return storage.ErrClosed
	default:
		return nil
	}
}

// view runs fn in a read transaction. A read that meets a damaged page
// fails with ErrDamaged instead of crashing the process.
func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	return s.logDamage(closedErr(guard("read", func() error { return s.db.View(fn) })))
}

// update runs fn in a write transaction, guarded like view.
func (s *Store) update(fn func(tx *bolt.Tx) error) error {
	return s.logDamage(closedErr(guard("write", func() error { return s.db.Update(fn) })))
}

// guard runs fn, which reads the file through bbolt's memory map, and turns
// a panic of bbolt on a damaged page, or a memory fault on a page past the
// end of a file truncated under it, into an error wrapping ErrDamaged.
// bbolt's View and Update roll their transaction back on the way out.
func guard(what string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = damage(what, r)
		}
	}()
	return fn()
}

// logDamage logs an error that guard made: the caller sees an error like
// any other, the operator needs to know the file is damaged.
func (s *Store) logDamage(err error) error {
	if errors.Is(err, ErrDamaged) {
		s.opts.Logger.Error("bbolt store: damaged page", "file", s.db.Path(), "err", err)
	}
	return err
}

// closedErr reports bbolt's error for a file closed under a running call
// as storage.ErrClosed.
func closedErr(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return fmt.Errorf("%w: %w", storage.ErrClosed, err)
	}
	return err
}
