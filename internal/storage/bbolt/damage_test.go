package bbolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// damaged is a closed store file with enough data for the keys bucket to
// be a tree of pages, and where its pages are.
type damaged struct {
	path     string
	ps       int64  // page size
	keysRoot uint64 // the keys bucket's root, a branch page
	leaf     uint64 // the first leaf below it
	pages    int64  // the high-water mark
	current  int64  // the store's revision
}

func newDamaged(t *testing.T) damaged {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Writers in parallel share commits; the last commit writes one key.
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	for w := range 30 {
		wg.Go(func() {
			for i := w; i < 300; i += 30 {
				_, err := s.Create(ctx, fmt.Sprintf("/d/%04d", i), bytes.Repeat([]byte{'v'}, 300))
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Create(ctx, "/d/last", nil); err != nil {
		t.Fatal(err)
	}
	d := damaged{path: path, ps: int64(os.Getpagesize())}
	d.current, _, _ = s.Revision(ctx)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		d.keysRoot = uint64(tx.Bucket(keysBucket).Root())
		d.pages = tx.Size() / d.ps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	root := d.read(t, d.keysRoot)
	if order.Uint16(root[8:]) != branchPageFlag {
		t.Fatalf("fixture: the keys bucket's root page %d is not a branch page", d.keysRoot)
	}
	d.leaf = order.Uint64(root[pageHeaderSize+8:])
	return d
}

func (d damaged) read(t *testing.T, id uint64) []byte {
	t.Helper()
	f, err := os.Open(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, d.ps)
	if _, err := f.ReadAt(p, int64(id)*d.ps); err != nil {
		t.Fatal(err)
	}
	return p
}

// rootPage is the root bucket's page, as the newer meta page says.
func (d damaged) rootPage(t *testing.T) uint64 {
	t.Helper()
	m0, m1 := d.read(t, 0)[pageHeaderSize:], d.read(t, 1)[pageHeaderSize:]
	if order.Uint64(m1[48:]) > order.Uint64(m0[48:]) {
		m0 = m1
	}
	return order.Uint64(m0[16:])
}

func (d damaged) write(t *testing.T, id uint64, p []byte) {
	t.Helper()
	f, err := os.OpenFile(d.path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(p, int64(id)*d.ps); err != nil {
		t.Fatal(err)
	}
}

// edit rewrites part of page id.
func (d damaged) edit(t *testing.T, id uint64, fn func(p []byte)) {
	t.Helper()
	p := d.read(t, id)
	fn(p)
	d.write(t, id, p)
}

// editMeta rewrites the meta fields of page id (0 or 1) and, unless
// garble, its checksum, so that the change looks like bbolt's own.
func (d damaged) editMeta(t *testing.T, id uint64, fn func(m []byte)) {
	d.edit(t, id, func(p []byte) {
		m := p[pageHeaderSize:]
		fn(m)
		h := fnv.New64a()
		h.Write(m[:metaSummed])
		order.PutUint64(m[metaSummed:], h.Sum64())
	})
}

func (d damaged) size(t *testing.T) int64 {
	t.Helper()
	fi, err := os.Stat(d.path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func (d damaged) truncate(t *testing.T, size int64) {
	t.Helper()
	if err := os.Truncate(d.path, size); err != nil {
		t.Fatal(err)
	}
}

func garbage(n int64, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestOpenDamaged damages a store's file in one way per case and expects
// Open to refuse it with an error that names the file and the damage,
// instead of a SIGBUS, a bbolt panic or an empty store.
func TestOpenDamaged(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, d damaged)
		want   error
		says   string
	}{
		{"zero bytes", func(t *testing.T, d damaged) { d.truncate(t, 0) }, ErrEmptyFile, "0 bytes"},
		{"truncated to half", func(t *testing.T, d damaged) { d.truncate(t, d.pages*d.ps/2) }, ErrDamaged, "truncated"},
		{"last page cut off", func(t *testing.T, d damaged) { d.truncate(t, (d.pages-1)*d.ps) }, ErrDamaged, "truncated"},
		{"truncated inside the first page", func(t *testing.T, d damaged) { d.truncate(t, 100) }, ErrDamaged, "truncated"},
		{"both meta pages garbage", func(t *testing.T, d damaged) {
			d.write(t, 0, garbage(2*d.ps, 1))
		}, ErrDamaged, "both meta pages are unreadable: page 0: no bbolt magic number"},
		{"both meta pages zeroed after the magic number", func(t *testing.T, d damaged) {
			for id := range uint64(2) {
				d.edit(t, id, func(p []byte) { clear(p[pageHeaderSize+4:]) })
			}
		}, ErrDamaged, "both meta pages are unreadable: page 0: checksum mismatch"},
		{"meta page counts more pages than the file has", func(t *testing.T, d damaged) {
			for id := range uint64(2) {
				d.editMeta(t, id, func(m []byte) { order.PutUint64(m[40:], uint64(d.size(t)/d.ps+1)) })
			}
		}, ErrDamaged, "truncated"},
		{"meta page puts the root past the pages in use", func(t *testing.T, d damaged) {
			for id := range uint64(2) {
				d.editMeta(t, id, func(m []byte) { order.PutUint64(m[16:], uint64(d.pages)) })
			}
		}, ErrDamaged, "puts the root bucket at page"},
		{"newer bbolt format", func(t *testing.T, d damaged) {
			for id := range uint64(2) {
				d.editMeta(t, id, func(m []byte) { order.PutUint32(m[4:], boltVersion+1) })
			}
		}, ErrUnsupportedFormat, "bbolt format version 3"},
		{"data page zeroed", func(t *testing.T, d damaged) {
			d.write(t, d.leaf, make([]byte, d.ps))
		}, ErrDamaged, `of bucket "keys"`},
		{"data page garbage", func(t *testing.T, d damaged) {
			d.write(t, d.leaf, garbage(d.ps, 2))
		}, ErrDamaged, "its header says it is page"},
		{"branch page garbage after its header", func(t *testing.T, d damaged) {
			d.edit(t, d.keysRoot, func(p []byte) { copy(p[pageHeaderSize:], garbage(d.ps, 3)) })
		}, ErrDamaged, `of bucket "keys"`},
		{"leaf element past its page", func(t *testing.T, d damaged) {
			d.edit(t, d.leaf, func(p []byte) { order.PutUint32(p[pageHeaderSize+4:], uint32(d.ps)) })
		}, ErrDamaged, "element 0 runs past the page"},
		{"leaf keys out of order", func(t *testing.T, d damaged) {
			d.edit(t, d.leaf, func(p []byte) { order.PutUint32(p[pageHeaderSize+elementSize+8:], 1) })
		}, ErrDamaged, "key 1: out of order"},
		{"leaf key empty", func(t *testing.T, d damaged) {
			d.edit(t, d.leaf, func(p []byte) { order.PutUint32(p[pageHeaderSize+elementSize+8:], 0) })
		}, ErrDamaged, "key 1 is empty"},
		{"branch page without elements", func(t *testing.T, d damaged) {
			d.edit(t, d.keysRoot, func(p []byte) { order.PutUint16(p[10:], 0) })
		}, ErrDamaged, "a branch page without elements"},
		{"branch child past the pages in use", func(t *testing.T, d damaged) {
			d.edit(t, d.keysRoot, func(p []byte) { order.PutUint64(p[pageHeaderSize+8:], uint64(d.pages+1000)) })
		}, ErrDamaged, "outside the pages in use"},
		{"branch child reached twice", func(t *testing.T, d damaged) {
			d.edit(t, d.keysRoot, func(p []byte) {
				copy(p[pageHeaderSize+elementSize+8:], p[pageHeaderSize+8:pageHeaderSize+16])
			})
		}, ErrDamaged, "reached twice"},
		{"branch child is a meta page", func(t *testing.T, d damaged) {
			d.edit(t, d.keysRoot, func(p []byte) { order.PutUint64(p[pageHeaderSize+8:], 1) })
		}, ErrDamaged, "outside the pages in use"},
		{"page type garbled", func(t *testing.T, d damaged) {
			d.edit(t, d.leaf, func(p []byte) { order.PutUint16(p[8:], 0x40) })
		}, ErrDamaged, "type 0x40"},
		{"overflow past the pages in use", func(t *testing.T, d damaged) {
			d.edit(t, d.leaf, func(p []byte) { order.PutUint32(p[12:], uint32(d.pages)) })
		}, ErrDamaged, "overflow pages run past"},
		{"inline bucket page claims a page id", func(t *testing.T, d damaged) {
			// The meta bucket is small enough to live inline in the root
			// bucket's leaf, as the value of its last element.
			root := d.rootPage(t)
			d.edit(t, root, func(p []byte) {
				e := pageHeaderSize + (int(order.Uint16(p[10:]))-1)*elementSize
				value := e + int(order.Uint32(p[e+4:])) + int(order.Uint32(p[e+8:]))
				order.PutUint64(p[value+bucketValueSize:], 7)
			})
		}, ErrDamaged, `bucket "meta" (inline): inline page says it is page 7`},
		{"text file", func(t *testing.T, d damaged) {
			writeFile(t, d.path, []byte("apiVersion: v1\nkind: ConfigMap\n"))
		}, ErrNotBolt, `it begins "apiVersion: v1\nk"`},
		{"random bytes", func(t *testing.T, d damaged) { writeFile(t, d.path, garbage(64<<10, 4)) }, ErrNotBolt, "no bbolt meta page"},
		{"SQLite database", func(t *testing.T, d damaged) {
			writeFile(t, d.path, append([]byte("SQLite format 3\x00"), make([]byte, 8192)...))
		}, ErrNotBolt, `SQLite format 3`},
		{"directory", func(t *testing.T, d damaged) {
			if err := os.Remove(d.path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(d.path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, ErrNotBolt, "a directory"},
		{"another program's bbolt file", func(t *testing.T, d damaged) {
			if err := os.Remove(d.path); err != nil {
				t.Fatal(err)
			}
			rawBolt(t, d.path, func(tx *bolt.Tx) error {
				_, err := tx.CreateBucket([]byte("members"))
				return err
			})
		}, ErrNotStore, `other buckets ("members")`},
		{"store bucket lost", func(t *testing.T, d damaged) {
			rawBolt(t, d.path, func(tx *bolt.Tx) error { return tx.DeleteBucket(logBucket) })
		}, ErrCorrupt, "bucket log missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDamaged(t)
			tc.damage(t, d)
			s, err := Open(d.path, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open of the damaged file succeeded")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), d.path) {
				t.Fatalf("Open = %v\nwant %v naming %s and saying %q", err, tc.want, d.path, tc.says)
			}
			t.Log(err)
		})
	}
}

// TestOpenOneMetaPageDamaged damages one meta page: bbolt keeps two so
// that a commit torn by a power loss leaves the previous one, and opens at
// that. The store opens, says so in the log, and is whole.
func TestOpenOneMetaPageDamaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		newest bool // damage the meta page of the last commit
	}{{"older meta page", false}, {"newest meta page", true}} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDamaged(t)
			var txid [2]uint64
			for id := range uint64(2) {
				txid[id] = order.Uint64(d.read(t, id)[pageHeaderSize+48:])
			}
			id := uint64(0)
			if (txid[1] > txid[0]) == tc.newest {
				id = 1
			}
			d.write(t, id, garbage(d.ps, 5))
			var logs bytes.Buffer
			s, err := Open(d.path, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if want := fmt.Sprintf("meta page %d is unreadable", id); !strings.Contains(logs.String(), want) {
				t.Fatalf("log %q does not say %q", logs.String(), want)
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			cur, _, _ := s.Revision(context.Background())
			// The last commit wrote the last key.
			if want := d.current - btoi(tc.newest); cur != want {
				t.Fatalf("revision %d after damage, want %d", cur, want)
			}
			// The next commit writes the damaged slot whole again.
			if _, err := s.Create(context.Background(), "/d/after", nil); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			logs.Reset()
			if s, err = Open(d.path, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
				t.Fatal(err)
			}
			if logs.Len() > 0 {
				t.Fatalf("reopened after a commit, the store still logs %q", logs.String())
			}
		})
	}
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestOpenCreates checks that a missing file becomes a new store, created
// in one step: no temporary file is left beside it.
func TestOpenCreates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cur, _, err := s.Revision(context.Background()); err != nil || cur != 0 {
		t.Fatalf("Revision = %d, %v; want 0", cur, err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "store.db" {
		t.Fatalf("directory holds %v, %v; want only store.db", entries, err)
	}
}

// TestOpenEmptyBoltFile opens a bbolt file without buckets, as a version
// that created stores in place left it when it crashed before its first
// commit: it holds nothing, so it becomes a new store.
func TestOpenEmptyBoltFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	rawBolt(t, path, func(*bolt.Tx) error { return nil })
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestDamageWhileServing damages the file under an open store: reads and
// writes that meet the damage fail with ErrDamaged, and the process lives.
func TestDamageWhileServing(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, d damaged)
	}{
		{"data page overwritten", func(t *testing.T, d damaged) { d.write(t, d.leaf, garbage(d.ps, 6)) }},
		{"branch page overwritten", func(t *testing.T, d damaged) { d.write(t, d.keysRoot, garbage(d.ps, 7)) }},
		// Pages past the end of the file fault in the memory map (SIGBUS).
		{"file truncated", func(t *testing.T, d damaged) { d.truncate(t, 2*d.ps) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDamaged(t)
			var logs lockedBuffer
			s, err := Open(d.path, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			tc.damage(t, d)
			ctx := context.Background()
			ops := []struct {
				name string
				op   func() error
			}{
				{"get", func() error { _, err := s.Get(ctx, "/d/0000"); return err }},
				{"list", func() error { _, err := s.List(ctx, "/d/", storage.ListOptions{}); return err }},
				{"create", func() error { _, err := s.Create(ctx, "/d/0000-new", nil); return err }},
				{"update", func() error { _, err := s.Update(ctx, "/d/0000", nil, 1); return err }},
			}
			for _, o := range ops {
				if err := o.op(); !errors.Is(err, ErrDamaged) {
					t.Errorf("%s = %v, want ErrDamaged", o.name, err)
				}
			}
			if !strings.Contains(logs.String(), "damaged page") {
				t.Errorf("nothing logged about the damage: %q", logs.String())
			}
			t.Log(strings.SplitN(logs.String(), "\n", 2)[0])
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// rawBolt runs fn in a write transaction of the bbolt file at path,
// creating it if need be.
func rawBolt(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(db.Update(fn), db.Close()); err != nil {
		t.Fatal(err)
	}
}
