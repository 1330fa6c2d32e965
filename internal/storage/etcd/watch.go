package etcd

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/portcullis/portcullis/internal/storage"
)

// Watch streams the changes under prefix after revision (0 = after the
// current revision).
func (s *Store) Watch(ctx context.Context, prefix string, revision int64) (<-chan storage.Event, error) {
	what := "watch " + prefix + " from " + strconv.FormatInt(revision, 10)
	if err := s.checkOpen(ctx, what); err != nil {
		return nil, err
	}
	if revision < 0 {
		return nil, fmt.Errorf("etcd store: %s: %w", what, ErrInvalidArgument)
	}
	// One read first. From now: its header is the revision every write
	// that has returned is at or below. From a revision: etcd would accept
	// watching from the compacted revision itself, which is revision+1 for
	// a caller asking for revision = compacted-1, and would report other
	// compactions only in a later response; a read at revision fails at
	// once for exactly the revisions below the compaction.
	ops := []clientv3.OpOption{clientv3.WithCountOnly()}
	if revision > 0 {
		ops = append(ops, clientv3.WithRev(revision))
	}
	resp, err := s.kv.Get(ctx, prefix, ops...)
	if err != nil {
		// A future revision is waited for, as etcd does.
		if err = s.fail(ctx, what, err); !errors.Is(err, storage.ErrFutureRevision) {
			return nil, err
		}
	} else if revision == 0 {
		revision = resp.Header.Revision
	}

	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	stopOnClose := context.AfterFunc(s.ctx, cancel)
	wch := s.watcher.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithRev(revision+1))
	out := make(chan storage.Event, s.opts.WatchBuffer)
	w := &watch{s: s, ctx: ctx, out: out, what: what}
	started := s.spawn(func() {
		defer close(out)
		defer stopOnClose()
		defer cancel()
		w.run(wch)
	})
	if !started {
		stopOnClose()
		cancel()
		return nil, fmt.Errorf("etcd store: %s: %w", what, storage.ErrClosed)
	}
	return out, nil
}

type watch struct {
	s    *Store
	ctx  context.Context // the caller's
	out  chan storage.Event
	what string
}

func (w *watch) run(wch clientv3.WatchChan) {
	for {
		select {
		case resp, ok := <-wch:
			if !ok {
				w.end(fmt.Errorf("etcd store: %s: %w: the client closed the watch", w.what, ErrWatchEnded))
				return
			}
			if resp.CompactRevision != 0 {
				w.s.noteCompacted(resp.CompactRevision)
				w.end(fmt.Errorf("etcd store: %s: compacted at %d: %w", w.what, resp.CompactRevision, storage.ErrCompacted))
				return
			}
			if err := resp.Err(); err != nil {
				w.end(fmt.Errorf("etcd store: %s: %w: %w", w.what, ErrWatchEnded, err))
				return
			}
			if resp.Canceled {
				w.end(fmt.Errorf("etcd store: %s: %w: cancelled (%s)", w.what, ErrWatchEnded, resp.CancelReason))
				return
			}
			for _, ev := range resp.Events {
				if !w.send(translate(ev)) {
					w.end(nil)
					return
				}
			}
		case <-w.ctx.Done():
			return
		case <-w.s.ctx.Done():
			w.end(nil)
			return
		}
	}
}

// end gives the reason a watch ends, unless the caller's context ended it,
// in which case the channel is only closed. Close does not wait for a
// reader: ErrClosed is delivered if the buffer has room for it.
func (w *watch) end(err error) {
	if w.ctx.Err() != nil {
		return
	}
	if w.s.closed.Load() {
		select {
		case w.out <- storage.Event{Type: storage.EventError, Err: fmt.Errorf("etcd store: %s: %w", w.what, storage.ErrClosed)}:
		default:
		}
		return
	}
	if err == nil {
		return
	}
	select {
	case w.out <- storage.Event{Type: storage.EventError, Err: err}:
	case <-w.ctx.Done():
	case <-w.s.ctx.Done():
	}
}

func (w *watch) send(ev storage.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.ctx.Done():
		return false
	case <-w.s.ctx.Done():
		return false
	}
}

// translate maps an etcd event to storage's shapes. etcd's delete event
// carries only the key and the delete's revision; the last value comes
// from the previous KV that WithPrevKV asks for.
func translate(ev *clientv3.Event) storage.Event {
	var prev *storage.KeyValue
	if ev.PrevKv != nil {
		p := fromKV(ev.PrevKv)
		prev = &p
	}
	if ev.Type == clientv3.EventTypeDelete {
		kv := storage.KeyValue{Key: string(ev.Kv.Key), ModRevision: ev.Kv.ModRevision}
		if prev != nil {
			kv.Value, kv.CreateRevision = prev.Value, prev.CreateRevision
		}
		return storage.Event{Type: storage.EventDelete, KV: kv, PrevKV: prev}
	}
	if ev.IsCreate() {
		return storage.Event{Type: storage.EventCreate, KV: fromKV(ev.Kv)}
	}
	return storage.Event{Type: storage.EventUpdate, KV: fromKV(ev.Kv), PrevKV: prev}
}
