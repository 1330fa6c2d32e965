package storagetest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
)

// benchValue is the size of a small Kubernetes object after encoding.
var benchValue = make([]byte, 200)

// benchWriters is the number of concurrent writers of the create benchmark,
// about what a busy API server has in flight.
const benchWriters = 32

// Bench runs every benchmark of this package as a sub-benchmark.
func Bench(b *testing.B, newStore func(b *testing.B) storage.Store) {
	b.Run("CreateParallel", func(b *testing.B) { BenchCreateParallel(b, newStore) })
	b.Run("Get", func(b *testing.B) { BenchGet(b, newStore) })
	b.Run("List1000", func(b *testing.B) { BenchList1000(b, newStore) })
	b.Run("WatchFanout", func(b *testing.B) { BenchWatchFanout(b, newStore) })
}

// BenchCreateParallel measures durable creates of 200-byte values from 32
// concurrent writers and reports them as ops/s.
func BenchCreateParallel(b *testing.B, newStore func(b *testing.B) storage.Store) {
	s := newStore(b)
	var n atomic.Int64
	b.SetParallelism((benchWriters + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.SetBytes(int64(len(benchValue)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			key := fmt.Sprintf("/bench/create/%09d", n.Add(1))
			if _, err := s.Create(ctx, key, benchValue); err != nil {
				b.Errorf("Create: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchGet measures concurrent point reads among 1000 keys.
func BenchGet(b *testing.B, newStore func(b *testing.B) storage.Store) {
	s := newStore(b)
	keys := fill(b, s, "/bench/get/", 1000)
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			key := keys[int(n.Add(1))%len(keys)]
			if _, err := s.Get(ctx, key); err != nil {
				b.Errorf("Get: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchList1000 measures a full list of a 1000-key prefix that has
// neighbours on both sides.
func BenchList1000(b *testing.B, newStore func(b *testing.B) storage.Store) {
	s := newStore(b)
	fill(b, s, "/bench/list/a/", 500)
	fill(b, s, "/bench/list/b/", 1000)
	fill(b, s, "/bench/list/c/", 500)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := s.List(ctx, "/bench/list/b/", storage.ListOptions{})
		if err != nil || len(res.KVs) != 1000 {
			b.Fatalf("List: %d keys, %v", len(res.KVs), err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchWatchFanout measures one writer feeding 100 watchers: an op is one
// durable write delivered to every watcher.
func BenchWatchFanout(b *testing.B, newStore func(b *testing.B) storage.Store) {
	const watchers = 100
	s := newStore(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ready, done sync.WaitGroup
	var failed atomic.Bool
	start := make(chan struct{})
	for range watchers {
		ch, err := s.Watch(ctx, "/bench/watch/", 0)
		if err != nil {
			b.Fatalf("Watch: %v", err)
		}
		ready.Add(1)
		done.Go(func() {
			ready.Done()
			<-start
			for range b.N {
				ev, ok := <-ch
				if !ok || ev.Type != storage.EventCreate {
					failed.Store(true)
					return
				}
			}
		})
	}
	ready.Wait()
	b.ResetTimer()
	close(start)
	for i := range b.N {
		if _, err := s.Create(ctx, fmt.Sprintf("/bench/watch/%09d", i), benchValue); err != nil {
			b.Fatalf("Create: %v", err)
		}
	}
	done.Wait()
	b.StopTimer()
	if failed.Load() {
		b.Fatal("a watcher ended early or saw a wrong event")
	}
	b.ReportMetric(float64(b.N*watchers)/b.Elapsed().Seconds(), "events/s")
}

// fill creates n keys under prefix with concurrent writers, so that setup
// is not bound by one fsync per key.
func fill(b *testing.B, s storage.Store, prefix string, n int) []string {
	b.Helper()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%06d", prefix, i)
	}
	var wg sync.WaitGroup
	for w := range benchWriters {
		wg.Go(func() {
			for i := w; i < n; i += benchWriters {
				if _, err := s.Create(context.Background(), keys[i], benchValue); err != nil {
					b.Errorf("Create(%s): %v", keys[i], err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return keys
}
