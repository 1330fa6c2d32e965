package etcd

import (
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/storagetest"
)

// newBenchStore is a store on a fresh namespace of the shared embedded
// etcd (one member, fsync on, over loopback).
func newBenchStore(b *testing.B) storage.Store { return newTestStore(b, "", Options{}) }

func BenchmarkCreateParallel(b *testing.B) { storagetest.BenchCreateParallel(b, newBenchStore) }
func BenchmarkGet(b *testing.B)            { storagetest.BenchGet(b, newBenchStore) }
func BenchmarkList1000(b *testing.B)       { storagetest.BenchList1000(b, newBenchStore) }
func BenchmarkWatchFanout(b *testing.B)    { storagetest.BenchWatchFanout(b, newBenchStore) }
