package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/portcullis/portcullis/internal/storage"
)

// watcher is one watch: the history it replays, then a bounded queue
// that writers fill under Store.mu and the watch's goroutine drains. A
// slice queue rather than a buffered channel: a watch costs only what it
// holds, not WatchBuffer events up front.
type watcher struct {
	prefix string
	after  int64 // live events only above this revision
	limit  int
	replay []storage.Event
	out    chan storage.Event
	wake   chan struct{} // buffered 1: "the queue is not empty"

	mu       sync.Mutex
	queue    []storage.Event
	spare    []storage.Event // the drained queue, kept for reuse
	overflow bool
}

// enqueue adds ev without ever blocking the writer; it returns false when
// w overflowed and must get no more.
func (w *watcher) enqueue(ev storage.Event) bool {
	w.mu.Lock()
	if len(w.queue) >= w.limit {
		// The client will re-list: what is queued is of no use to it.
		clear(w.queue)
		w.queue = w.queue[:0]
		w.overflow = true
	} else {
		w.queue = append(w.queue, ev)
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if revision < 0 {
		return nil, fmt.Errorf("watch %q: %w: revision %d", prefix, ErrInvalidArgument, revision)
	}
	w := &watcher{
		prefix: prefix,
		limit:  s.buffer,
		out:    make(chan storage.Event),
		wake:   make(chan struct{}, 1),
	}
	// The replay is copied and the watcher registered in one critical
	// section, so that live events start exactly after the replay ends.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, storage.ErrClosed
	}
	if revision != 0 && revision < s.compacted {
		s.mu.Unlock()
		return nil, fmt.Errorf("watch %q from %d: %w at %d", prefix, revision, storage.ErrCompacted, s.compacted)
	}
	w.after = max(revision, s.rev)
	if revision != 0 {
		for _, ev := range s.log[s.logIndex(revision):] {
			if strings.HasPrefix(ev.KV.Key, prefix) {
				w.replay = append(w.replay, ev)
			}
		}
	}
	s.watchers[w] = struct{}{}
	// Added under the lock Close takes before it waits, so that Close
	// waits for every watch it did not refuse.
	s.wg.Add(1)
	s.mu.Unlock()
	go s.run(ctx, w)
	return w.out, nil
}

// logIndex is the position in s.log of the first event above revision;
// s.mu is held.
func (s *Store) logIndex(revision int64) int {
	i, _ := slices.BinarySearchFunc(s.log, revision+1, func(ev storage.Event, r int64) int {
		return int(min(max(ev.KV.ModRevision-r, -1), 1))
	})
	return i
}

// run hands w's replay and then its live events to w.out until ctx is
// done, the store closes or w overflows, then closes w.out.
func (s *Store) run(ctx context.Context, w *watcher) {
	defer s.wg.Done()
	defer close(w.out)
	defer s.forget(w)
	for i, ev := range w.replay {
		if !s.send(ctx, w, ev) {
			return
		}
		w.replay[i] = storage.Event{} // let the history it shares go once compacted
	}
	w.replay = nil
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

// send delivers a copy of ev unless the watch or the store ends first.
func (s *Store) send(ctx context.Context, w *watcher, ev storage.Event) bool {
	select {
	case w.out <- copyEvent(ev):
		return true
	case <-ctx.Done():
		return false
	case <-s.stop:
		return false
	}
}

// forget unregisters w, if a writer or Close has not already.
func (s *Store) forget(w *watcher) {
	s.mu.Lock()
	delete(s.watchers, w)
	s.mu.Unlock()
}

// copyEvent gives each watcher its own copy of the values: a caller may
// change what it receives.
func copyEvent(ev storage.Event) storage.Event {
	ev.KV = cloneKV(ev.KV)
	if ev.PrevKV != nil {
		prev := cloneKV(*ev.PrevKV)
		ev.PrevKV = &prev
	}
	return ev
}
