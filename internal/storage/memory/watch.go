package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/portcullis/portcullis/internal/storage"
)

// watcher is one watch: its replay, its queue of live events and why it
// may end early. overflow and stopped are closed under Store.mu by the
// writer that found the queue full and by Close.
type watcher struct {
	prefix   string
	replay   []storage.Event
	queue    chan storage.Event
	overflow chan struct{}
	stopped  chan struct{}
}

// Watch implements storage.Store.
func (s *Store) Watch(ctx context.Context, prefix string, revision int64) (<-chan storage.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &watcher{prefix: prefix, queue: make(chan storage.Event, s.buffer), overflow: make(chan struct{}), stopped: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, storage.ErrClosed
	}
	if revision > 0 {
		if revision < s.compacted {
			s.mu.Unlock()
			return nil, fmt.Errorf("watch from revision %d, compacted at %d: %w", revision, s.compacted, storage.ErrCompacted)
		}
		i, _ := slices.BinarySearchFunc(s.log, revision+1, func(ev storage.Event, r int64) int {
			return int(min(max(ev.KV.ModRevision-r, -1), 1))
		})
		for _, ev := range s.log[i:] {
			if strings.HasPrefix(ev.KV.Key, prefix) {
				w.replay = append(w.replay, ev)
			}
		}
	}
	s.watchers[w] = struct{}{}
	s.mu.Unlock()

	out := make(chan storage.Event)
	go s.run(ctx, w, out)
	return out, nil
}

// run hands w's events to out until ctx ends, the store closes or the
// queue overflows, then closes out.
func (s *Store) run(ctx context.Context, w *watcher, out chan<- storage.Event) {
	defer close(out)
	defer s.forget(w)
	fail := func(err error) {
		select {
		case out <- storage.Event{Type: storage.EventError, Err: err}:
		case <-ctx.Done():
		}
	}
	// send delivers ev, or reports why the watch ends instead.
	send := func(ev storage.Event) bool {
		select {
		case out <- copyEvent(ev):
			return true
		case <-ctx.Done():
		case <-w.stopped:
			fail(storage.ErrClosed)
		}
		return false
	}
	for _, ev := range w.replay {
		if !send(ev) {
			return
		}
	}
	w.replay = nil
	for {
		select {
		case ev := <-w.queue:
			if !send(ev) {
				return
			}
		case <-w.overflow:
			// What was queued before the overflow is still handed over.
			for {
				select {
				case ev := <-w.queue:
					if !send(ev) {
						return
					}
					continue
				default:
				}
				break
			}
			fail(storage.ErrWatcherTooSlow)
			return
		case <-w.stopped:
			fail(storage.ErrClosed)
			return
		case <-ctx.Done():
			return
		}
	}
}

// forget unregisters w, if a writer or Close has not already.
func (s *Store) forget(w *watcher) {
	s.mu.Lock()
	delete(s.watchers, w)
	s.mu.Unlock()
}

// copyEvent gives each watcher its own copy of the values.
func copyEvent(ev storage.Event) storage.Event {
	ev.KV = cloneKV(ev.KV)
	if ev.PrevKV != nil {
		prev := cloneKV(*ev.PrevKV)
		ev.PrevKV = &prev
	}
	return ev
}
