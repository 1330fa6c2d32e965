package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// Handler receives the objects of one resource. Upsert is called for
// every object that appears or changes, Delete for every object that goes.
// Calls are sequential for one informer.
type Handler interface {
	Upsert(obj runtime.Object)
	Delete(obj runtime.Object)
}

// Decoder turns a stored value into a typed object.
type Decoder func(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error)

// Informer follows one resource.
type Informer struct {
	store   storage.Store
	res     *registry.Resource
	decode  Decoder
	handler Handler
	log     *slog.Logger

	mu     sync.Mutex
	synced bool
	// known maps keys to their last delivered object, for relists.
	known map[string]runtime.Object
	syncC chan struct{}
}

// New returns an informer; Run starts it.
func New(store storage.Store, res *registry.Resource, decode Decoder, handler Handler, log *slog.Logger) *Informer {
	return &Informer{store: store, res: res, decode: decode, handler: handler, log: log,
		known: map[string]runtime.Object{}, syncC: make(chan struct{})}
}

// Synced is closed once the first list has been delivered.
func (in *Informer) Synced() <-chan struct{} { return in.syncC }

// Run lists and watches until ctx is done.
func (in *Informer) Run(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		rev, err := in.relist(ctx)
		if err == nil {
			backoff = 100 * time.Millisecond
			err = in.follow(ctx, rev)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil && !errors.Is(err, storage.ErrWatcherTooSlow) && !errors.Is(err, storage.ErrCompacted) {
			in.log.Warn("informer restarting", "resource", in.res.GVR.String(), "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// relist delivers the current state, including deletions of objects
// known from before that are gone now.
func (in *Informer) relist(ctx context.Context) (int64, error) {
	out, err := in.store.List(ctx, in.res.KeyPrefix(), storage.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("listing %s: %w", in.res.GVR, err)
	}
	seen := make(map[string]bool, len(out.KVs))
	for _, kv := range out.KVs {
		obj, err := in.decode(in.res, kv)
		if err != nil {
			in.log.Error("informer: undecodable object", "key", kv.Key, "err", err)
			continue
		}
		seen[kv.Key] = true
		in.known[kv.Key] = obj
		in.handler.Upsert(obj)
	}
	for key, obj := range in.known {
		if !seen[key] {
			delete(in.known, key)
			in.handler.Delete(obj)
		}
	}
	in.mu.Lock()
	if !in.synced {
		in.synced = true
		close(in.syncC)
	}
	in.mu.Unlock()
	return out.Revision, nil
}

// follow applies watch events after rev until the watch ends.
func (in *Informer) follow(ctx context.Context, rev int64) error {
	events, err := in.store.Watch(ctx, in.res.KeyPrefix(), rev)
	if err != nil {
		return err
	}
	for ev := range events {
		switch ev.Type {
		case storage.EventError:
			return ev.Err
		case storage.EventDelete:
			if obj, ok := in.known[ev.KV.Key]; ok {
				delete(in.known, ev.KV.Key)
				in.handler.Delete(obj)
			}
		default:
			obj, err := in.decode(in.res, ev.KV)
			if err != nil {
				in.log.Error("informer: undecodable object", "key", ev.KV.Key, "err", err)
				continue
			}
			in.known[ev.KV.Key] = obj
			in.handler.Upsert(obj)
		}
	}
	return ctx.Err()
}

// HandlerFuncs adapts two functions to Handler.
type HandlerFuncs struct {
	UpsertFunc func(obj runtime.Object)
	DeleteFunc func(obj runtime.Object)
}

// Upsert calls UpsertFunc.
func (h HandlerFuncs) Upsert(obj runtime.Object) { h.UpsertFunc(obj) }

// Delete calls DeleteFunc.
func (h HandlerFuncs) Delete(obj runtime.Object) { h.DeleteFunc(obj) }
