package etcd

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/namespace"

	"github.com/portcullis/portcullis/internal/storage"
)

// scriptedWatcher hands each Watch the responses a test sends, to play
// what etcd does rarely: compact under a running watch, or cancel it.
type scriptedWatcher struct {
	resps chan clientv3.WatchResponse
}

func (w *scriptedWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	ch := make(chan clientv3.WatchResponse)
	go func() {
		defer close(ch)
		for {
			select {
			case r := <-w.resps:
				select {
				case ch <- r:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

func (w *scriptedWatcher) RequestProgress(context.Context) error { return nil }
func (w *scriptedWatcher) Close() error                          { return nil }

func TestWatchEndedByEtcd(t *testing.T) {
	tests := []struct {
		name string
		resp clientv3.WatchResponse
		want error
	}{
		{"compacted mid-watch", clientv3.WatchResponse{CompactRevision: 7, Canceled: true}, storage.ErrCompacted},
		{"lost leader", clientv3.WatchResponse{Canceled: true, CancelReason: rpctypes.ErrNoLeader.Error()}, ErrWatchEnded},
		{"cancelled", clientv3.WatchResponse{Canceled: true}, ErrWatchEnded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &scriptedWatcher{resps: make(chan clientv3.WatchResponse)}
			s := newStore(namespace.NewKV(shared.client.KV, newNamespace()), w, Options{})
			t.Cleanup(func() { s.Close() })
			ch, err := s.Watch(t.Context(), "/w/", 0)
			if err != nil {
				t.Fatal(err)
			}
			put := clientv3.WatchResponse{Header: &etcdserverpb.ResponseHeader{Revision: 3}, Events: []*clientv3.Event{{
				Type: clientv3.EventTypePut,
				Kv:   &mvccpb.KeyValue{Key: []byte("/w/a"), Value: []byte("v"), CreateRevision: 3, ModRevision: 3, Version: 1},
			}}}
			w.resps <- put
			w.resps <- tc.resp
			if ev := recv(t, ch); ev.Type != storage.EventCreate || ev.KV.Key != "/w/a" {
				t.Fatalf("first event %+v, want create /w/a", ev)
			}
			if ev := recv(t, ch); ev.Type != storage.EventError || !errors.Is(ev.Err, tc.want) {
				t.Fatalf("second event %+v, want an error %v", ev, tc.want)
			}
			select {
			case ev, ok := <-ch:
				if ok {
					t.Fatalf("event %+v after the error, want the channel closed", ev)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("channel not closed after the error")
			}
			if tc.resp.CompactRevision != 0 && s.compacted.Load() != tc.resp.CompactRevision {
				t.Fatalf("compacted = %d, want %d", s.compacted.Load(), tc.resp.CompactRevision)
			}
		})
	}
}

func recv(t *testing.T, ch <-chan storage.Event) storage.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("channel closed, want an event")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for an event")
	}
	return storage.Event{}
}

// TestCloseDeliversErrClosed: a watch with a reader ends with ErrClosed.
func TestCloseDeliversErrClosed(t *testing.T) {
	s := newTestStore(t, "", Options{})
	ch, err := s.Watch(context.Background(), "/c/", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ev := recv(t, ch); ev.Type != storage.EventError || !errors.Is(ev.Err, storage.ErrClosed) {
		t.Fatalf("event %+v, want ErrClosed", ev)
	}
	if _, ok := <-ch; ok {
		t.Fatal("channel open after ErrClosed")
	}
}
