package bbolt

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// replayChunk bounds the log entries read per read transaction while a
// watch replays history: a long-lived read transaction would hold up the
// writer when the file's memory map has to grow.
const replayChunk = 512

// hub fans committed events out to watchers. The committer publishes under
// mu, and watchers register under mu, so a new watcher knows exactly which
// revision live events start after.
type hub struct {
	mu       sync.Mutex
	rev      int64 // last published revision
	watchers map[*watcher]struct{}
	closed   bool
}

// watcher is one watch: a bounded queue filled by the committer and
// drained by the watch's goroutine into out.
type watcher struct {
	prefix string
	after  int64 // only events above this revision
	limit  int
	out    chan storage.Event
	wake   chan struct{} // buffered 1: "the queue is not empty"

	mu       sync.Mutex
	queue    []storage.Event
	spare    []storage.Event // the drained queue, kept for reuse
	overflow bool
}

func (h *hub) publish(events []storage.Event, rev int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rev = rev
	for w := range h.watchers {
		if !w.enqueue(events) {
			delete(h.watchers, w)
		}
	}
}

func (h *hub) remove(w *watcher) {
	h.mu.Lock()
	delete(h.watchers, w)
	h.mu.Unlock()
}

func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
}

// enqueue adds the events w wants without ever blocking; it returns false
// when w overflowed and must get no more.
func (w *watcher) enqueue(events []storage.Event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	added := false
	for _, ev := range events {
		if ev.KV.ModRevision <= w.after || !strings.HasPrefix(ev.KV.Key, w.prefix) {
			continue
		}
		if len(w.queue) >= w.limit {
			// The client will re-list: what is queued is of no use to it.
			clear(w.queue)
			w.queue = w.queue[:0]
			w.overflow = true
			added = true
			break
		}
		w.queue = append(w.queue, ev)
		added = true
	}
	if added {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return !w.overflow
}

// take hands over the queued events; give them back with recycle.
func (w *watcher) take() ([]storage.Event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	evs := w.queue
	w.queue, w.spare = w.spare, nil
	return evs, w.overflow
}

func (w *watcher) recycle(evs []storage.Event) {
	clear(evs)
	w.mu.Lock()
	w.spare = evs[:0]
	w.mu.Unlock()
}

// Watch implements storage.Store. A revision above the current one is
// allowed: the watch waits for it.
func (s *Store) Watch(ctx context.Context, prefix string, revision int64) (<-chan storage.Event, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	if revision < 0 {
		return nil, fmt.Errorf("watch %q: %w: revision %d", prefix, ErrInvalidArgument, revision)
	}
	w := &watcher{
		prefix: prefix,
		limit:  s.opts.WatchBuffer,
		out:    make(chan storage.Event),
		wake:   make(chan struct{}, 1),
	}
	s.hub.mu.Lock()
	if s.hub.closed {
		s.hub.mu.Unlock()
		return nil, storage.ErrClosed
	}
	if compacted := s.compacted.Load(); revision != 0 && revision < compacted {
		s.hub.mu.Unlock()
		return nil, fmt.Errorf("watch %q from %d: %w at %d", prefix, revision, storage.ErrCompacted, compacted)
	}
	published := s.hub.rev
	w.after = revision
	if revision == 0 {
		w.after = published
	}
	s.hub.watchers[w] = struct{}{}
	// Added under the lock that Close takes before waiting, so that Close
	// waits for every watcher it did not refuse.
	s.wg.Add(1)
	s.hub.mu.Unlock()
	go s.runWatcher(ctx, w, published)
	return w.out, nil
}

// runWatcher replays the history up to the revision published when w
// registered, then forwards live events, until ctx is done, the store
// closes or w fails.
func (s *Store) runWatcher(ctx context.Context, w *watcher, published int64) {
	defer s.wg.Done()
	defer close(w.out)
	defer s.hub.remove(w)
	for from := w.after; from < published; {
		evs, next, err := s.readLog(w.prefix, from, published)
		if err != nil {
			s.send(ctx, w, storage.Event{Type: storage.EventError, Err: fmt.Errorf("watch %q: %w", w.prefix, err)})
			return
		}
		for _, ev := range evs {
			if !s.send(ctx, w, ev) {
				return
			}
		}
		from = next
	}
	for {
		select {
		case <-w.wake:
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		}
		evs, overflow := w.take()
		for _, ev := range evs {
			if !s.send(ctx, w, ev) {
				return
			}
		}
		w.recycle(evs)
		if overflow {
			s.send(ctx, w, storage.Event{Type: storage.EventError, Err: fmt.Errorf("watch %q: %w", w.prefix, storage.ErrWatcherTooSlow)})
			return
		}
	}
}

// send delivers ev unless the watch or the store ends first.
func (s *Store) send(ctx context.Context, w *watcher, ev storage.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-ctx.Done():
		return false
	case <-s.stop:
		return false
	}
}

// readLog returns the events under prefix among the log entries after
// revision from, up to to and at most replayChunk of them, and the last
// revision it read.
func (s *Store) readLog(prefix string, from, to int64) ([]storage.Event, int64, error) {
	to = min(to, from+replayChunk)
	var evs []storage.Event
	err := s.view(func(tx *bolt.Tx) error {
		m, err := readMeta(tx)
		if err != nil {
			return err
		}
		if from < m.compacted {
			return fmt.Errorf("%w: need history after %d, compacted at %d", storage.ErrCompacted, from, m.compacted)
		}
		c := tx.Bucket(logBucket).Cursor()
		want := from + 1
		for k, v := c.Seek(revKey(want)); want <= to; k, v = c.Next() {
			if k == nil || !bytes.Equal(k, revKey(want)) {
				return fmt.Errorf("%w: log entry %d missing", ErrCorrupt, want)
			}
			e, err := decodeLogEntry(v)
			if err != nil {
				return fmt.Errorf("log entry %d: %w", want, err)
			}
			if bytes.HasPrefix(e.key, []byte(prefix)) {
				evs = append(evs, e.event(want))
			}
			want++
		}
		return nil
	})
	return evs, to, err
}
