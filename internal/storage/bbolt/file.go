package bbolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// boltOptions are the options of every read-write open.
func boltOptions(opts Options) *bolt.Options {
	return &bolt.Options{
		Timeout: opts.LockTimeout,
		// Like etcd: the freelist is rebuilt on open instead of written on
		// every commit, which saves a page write per transaction.
		NoFreelistSync:  true,
		FreelistType:    bolt.FreelistMapType,
		InitialMmapSize: opts.InitialMmapSize,
	}
}

// openFile opens the bbolt file at path for a store: it creates a new file
// whole when there is none, and vets an existing one before bbolt maps it.
func openFile(path string, opts Options) (*bolt.DB, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createFile(path, opts); err != nil {
			return nil, err
		}
		fi, err = os.Stat(path)
	}
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%w: a directory", ErrNotBolt)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: not a regular file (%s)", ErrNotBolt, fi.Mode().Type())
	case fi.Size() == 0:
		return nil, fmt.Errorf("%w: 0 bytes; remove it to start an empty store", ErrEmptyFile)
	}
	if err := vetLocked(path, opts); err != nil {
		return nil, err
	}
	return openBolt(path, opts)
}

// vetLocked vets the file while holding bbolt's shared lock on it, so that
// no writer changes pages under the walk. bbolt's read-only open reads only
// the two meta pages, through read(2) and the map, which it checks against
// the file size first: it is safe on any file.
func vetLocked(path string, opts Options) error {
	ro, lockErr := bolt.Open(path, 0, &bolt.Options{ReadOnly: true, Timeout: opts.LockTimeout})
	if errors.Is(lockErr, berrors.ErrTimeout) {
		return fmt.Errorf("locked by another process: %w", lockErr)
	}
	// Otherwise bbolt got the lock, even if it then refused the file: no
	// writer holds it, and vetting tells best what is wrong.
	if ro != nil {
		defer ro.Close()
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	start := time.Now()
	src, unmap := mapFile(f, fi.Size())
	defer unmap()
	// A file truncated under the map faults: guard makes that an error.
	var rep fileReport
	if err := guard("vet", func() (err error) { rep, err = vetFile(src); return err }); err != nil {
		return err
	}
	for _, w := range rep.warnings {
		opts.Logger.Warn("bbolt store: "+w, "file", path)
	}
	opts.Logger.Debug("bbolt store: file vetted", "file", path, "transaction", rep.txid,
		"pages", rep.pages, "pageSize", rep.pageSize, "reached", rep.reached, "took", time.Since(start))
	if lockErr != nil {
		return lockErr
	}
	return nil
}

// openBolt opens a vetted file. bbolt panics, in the caller's goroutine,
// on pages it finds inconsistent while rebuilding the freelist; vetting
// checks what it checks, and this guard is the second line.
func openBolt(path string, opts Options) (db *bolt.DB, err error) {
	err = guard("open", func() error {
		db, err = bolt.Open(path, 0o600, boltOptions(opts))
		return err
	})
	return db, err
}

// damage is the error for a panic, or a memory fault, on a damaged page.
func damage(what string, r any) error {
	if _, fault := r.(interface{ Addr() uintptr }); fault {
		return fmt.Errorf("%w: %s: a memory fault in the map of the file, as a page past the end of a file truncated under the store gives (%v)", ErrDamaged, what, r)
	}
	return fmt.Errorf("%w: %s: %v", ErrDamaged, what, r)
}

// createFile creates a store at path in one step: the layout is written to
// a temporary file that is then linked into place, so that a crash leaves
// either no file or a whole store, never a partial or empty one.
func createFile(path string, opts Options) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".new-*")
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	db, err := bolt.Open(name, 0o600, boltOptions(opts))
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if err := errors.Join(db.Update(initLayout), db.Close()); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	// A link, unlike a rename, does not replace a store another process
	// created meanwhile.
	if err := os.Link(name, path); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := os.Rename(name, path); err != nil {
			return fmt.Errorf("create: %w", err)
		}
	}
	return syncDir(dir)
}

// syncDir makes a new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
