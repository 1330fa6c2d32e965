package bbolt

import (
	"path/filepath"
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/storagetest"
)

func newBenchStore(b *testing.B) storage.Store {
	s, err := Open(filepath.Join(b.TempDir(), "store.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkCreateParallel(b *testing.B) { storagetest.BenchCreateParallel(b, newBenchStore) }
func BenchmarkGet(b *testing.B)            { storagetest.BenchGet(b, newBenchStore) }
func BenchmarkList1000(b *testing.B)       { storagetest.BenchList1000(b, newBenchStore) }
func BenchmarkWatchFanout(b *testing.B)    { storagetest.BenchWatchFanout(b, newBenchStore) }
