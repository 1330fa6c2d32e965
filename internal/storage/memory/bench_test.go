package memory

import (
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/storagetest"
)

func newBenchStore(b *testing.B) storage.Store {
	s := New(Options{})
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func BenchmarkCreateParallel(b *testing.B) { storagetest.BenchCreateParallel(b, newBenchStore) }
func BenchmarkGet(b *testing.B)            { storagetest.BenchGet(b, newBenchStore) }
func BenchmarkList1000(b *testing.B)       { storagetest.BenchList1000(b, newBenchStore) }
func BenchmarkWatchFanout(b *testing.B)    { storagetest.BenchWatchFanout(b, newBenchStore) }
