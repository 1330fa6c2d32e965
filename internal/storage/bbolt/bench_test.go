package bbolt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

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

// BenchmarkOpen10000 measures opening a store of 10,000 objects of 1 KiB
// with their history: vetting the file, bbolt's open (which rebuilds the
// freelist by walking the pages too) and loading the layout; "vet" is the
// vetting alone and "bbolt" bbolt's open alone, as Open did before.
func BenchmarkOpen10000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "store.db")
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Go(func() {
			for i := w; i < 10000; i += 32 {
				if _, err := s.Create(context.Background(), fmt.Sprintf("/registry/configmaps/default/cm-%05d", i), make([]byte, 1024)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
		b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
	})
	b.Run("vet", func(b *testing.B) {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		src, unmap := mapFile(f, fi.Size())
		defer unmap()
		var rep fileReport
		for b.Loop() {
			if rep, err = vetFile(src); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rep.reached), "pages")
	})
	b.Run("bbolt", func(b *testing.B) {
		for b.Loop() {
			db, err := bolt.Open(path, 0o600, boltOptions(Options{}.withDefaults()))
			if err != nil {
				b.Fatal(err)
			}
			db.Close()
		}
	})
}
