package bbolt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// FuzzVetFile feeds vetFile mutations of small bbolt files. It must never
// panic, must refuse with one of its errors, and whatever it accepts bbolt
// must open, read whole and write to without a panic: that is what Open
// relies on.
func FuzzVetFile(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := vetFile(mapped(data))
		_, rerr := vetFile(readFile{r: bytes.NewReader(data), n: int64(len(data))})
		if fmt.Sprint(err) != fmt.Sprint(rerr) {
			t.Fatalf("vetFile mapped = %v, read = %v", err, rerr)
		}
		if err != nil {
			for _, known := range []error{ErrEmptyFile, ErrNotBolt, ErrUnsupportedFormat, ErrDamaged} {
				if errors.Is(err, known) {
					return
				}
			}
			t.Fatalf("vetFile = %v, not one of its errors", err)
		}
		path := filepath.Join(t.TempDir(), "db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		err = guard("fuzz", func() error {
			opts := boltOptions(Options{})
			opts.NoSync, opts.NoGrowSync = true, true // the fuzzer needs speed, not durability
			db, err := bolt.Open(path, 0o600, opts)
			if err != nil {
				return nil // refused: fine, as long as it did not panic
			}
			defer db.Close()
			if err := db.View(func(tx *bolt.Tx) error {
				return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
					if b == nil {
						return nil // a key, not a bucket, in the root
					}
					return readBucket(b)
				})
			}); err != nil {
				return nil
			}
			return db.Update(func(tx *bolt.Tx) error {
				return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
					if b == nil {
						return nil
					}
					if b.Get([]byte("fuzz")) == nil && b.Bucket([]byte("fuzz")) == nil {
						return b.Put([]byte("fuzz"), make([]byte, 300))
					}
					return nil
				})
			})
		})
		if errors.Is(err, ErrDamaged) {
			t.Fatalf("bbolt panicked on a file vetFile accepted: %v", err)
		}
	})
}

// readBucket reads every key and value of b and of the buckets inside it.
func readBucket(b *bolt.Bucket) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			if child := b.Bucket(k); child != nil {
				if err := readBucket(child); err != nil {
					return err
				}
			}
			continue
		}
		if got := b.Get(k); !bytes.Equal(got, v) {
			return fmt.Errorf("key %q: Get differs from the cursor", k)
		}
	}
	return nil
}

// fuzzSeeds are small files of 1 KiB pages: a new store's layout; one with
// enough keys for a tree of pages, a nested bucket and a large value; and
// the same with the freelist synced to a page, as bbolt's default writes it.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for i, fill := range []bool{false, true, true} {
		path := filepath.Join(f.TempDir(), fmt.Sprintf("seed%d", i))
		db, err := bolt.Open(path, 0o600, &bolt.Options{PageSize: 1024, NoFreelistSync: i < 2})
		if err != nil {
			f.Fatal(err)
		}
		err = db.Update(initLayout)
		if err == nil && fill {
			err = db.Update(func(tx *bolt.Tx) error {
				keys := tx.Bucket(keysBucket)
				for k := range 40 {
					if err := keys.Put(fmt.Appendf(nil, "/k/%03d", k), bytes.Repeat([]byte{'v'}, 60)); err != nil {
						return err
					}
				}
				nested, err := tx.Bucket(logBucket).CreateBucket([]byte("nested"))
				if err != nil {
					return err
				}
				if err := nested.Put([]byte("big"), make([]byte, 3000)); err != nil {
					return err
				}
				_, err = nested.CreateBucket([]byte("inline"))
				return err
			})
		}
		if err == nil && fill {
			// Free some pages.
			err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(keysBucket).Delete([]byte("/k/000")) })
		}
		if err := errors.Join(err, db.Close()); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := vetFile(mapped(b)); err != nil {
			f.Fatalf("seed %d: %v", i, err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}
