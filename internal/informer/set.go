package informer

import (
	"context"
	"log/slog"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// Set is an informer that keeps the objects it follows for reading: the
// current objects of one resource and, for each subscriber, a signal after
// every change. Controllers that only need "all of them, and tell me when
// something changed" share one Set, and so one list and one watch.
type Set[T runtime.Object] struct {
	in *Informer

	mu   sync.Mutex
	objs map[string]T // by namespace/name
	subs []chan struct{}
}

// NewSet returns a set over res; Run starts it.
func NewSet[T runtime.Object](store storage.Store, res *registry.Resource, decode Decoder, log *slog.Logger) *Set[T] {
	s := &Set[T]{objs: map[string]T{}}
	s.in = New(store, res, decode, HandlerFuncs{UpsertFunc: s.upsert, DeleteFunc: s.delete}, log)
	return s
}

// Run lists and watches until ctx is done.
func (s *Set[T]) Run(ctx context.Context) { s.in.Run(ctx) }

// Synced is closed once the first list is in the set.
func (s *Set[T]) Synced() <-chan struct{} { return s.in.Synced() }

// Subscribe returns a channel that receives after changes; a subscriber
// that has not received yet gets one signal for all the changes since.
func (s *Set[T]) Subscribe() <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs = append(s.subs, ch)
	s.mu.Unlock()
	return ch
}

// List returns the objects in key order. They are shared: callers copy
// before changing one.
func (s *Set[T]) List() []T {
	s.mu.Lock()
	keys := make([]string, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = s.objs[k]
	}
	s.mu.Unlock()
	return out
}

func (s *Set[T]) upsert(obj runtime.Object) {
	t, ok := obj.(T)
	if !ok {
		return
	}
	s.mu.Lock()
	s.objs[key(obj)] = t
	s.mu.Unlock()
	s.notify()
}

func (s *Set[T]) delete(obj runtime.Object) {
	s.mu.Lock()
	delete(s.objs, key(obj))
	s.mu.Unlock()
	s.notify()
}

func (s *Set[T]) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func key(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetNamespace() + "/" + m.GetName()
}
