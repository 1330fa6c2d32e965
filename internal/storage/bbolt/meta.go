package bbolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Buckets of the file; see record.go for what they hold.
var (
	keysBucket = []byte("keys")
	logBucket  = []byte("log")
	metaBucket = []byte("meta")
)

// Keys of the meta bucket.
var (
	formatKey    = []byte("format")
	currentKey   = []byte("current")
	compactedKey = []byte("compacted")
)

// meta is the store-wide state kept in the meta bucket.
type meta struct {
	current   int64 // revision of the last write
	compacted int64 // revisions up to this one are gone from the log
}

// initLayout writes the layout of an empty store.
func initLayout(tx *bolt.Tx) error {
	for _, name := range [][]byte{keysBucket, logBucket, metaBucket} {
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	if err := tx.Bucket(metaBucket).Put(formatKey, []byte{recordFormat}); err != nil {
		return fmt.Errorf("write format: %w", err)
	}
	return writeMeta(tx, meta{})
}

// errNoLayout is a bbolt file without any bucket: one that an earlier
// version, which created stores in place, left when it crashed before its
// first commit.
var errNoLayout = errors.New("no buckets")

// loadLayout checks that the file holds this layout in a format this
// version reads, and returns the meta bucket's state.
func loadLayout(tx *bolt.Tx) (meta, error) {
	var missing []string
	for _, name := range [][]byte{keysBucket, logBucket, metaBucket} {
		if tx.Bucket(name) == nil {
			missing = append(missing, string(name))
		}
	}
	if len(missing) == 3 {
		var others []string
		err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if len(others) == 5 {
				others = append(others, "...")
				return errStop
			}
			others = append(others, strconv.Quote(string(name)))
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return meta{}, err
		}
		if len(others) == 0 {
			return meta{}, errNoLayout
		}
		return meta{}, fmt.Errorf("%w: a bbolt file with other buckets (%s)", ErrNotStore, strings.Join(others, ", "))
	}
	if len(missing) > 0 {
		return meta{}, fmt.Errorf("%w: bucket %s missing", ErrCorrupt, strings.Join(missing, ", "))
	}
	if f := tx.Bucket(metaBucket).Get(formatKey); len(f) != 1 || f[0] != recordFormat {
		return meta{}, fmt.Errorf("%w: format %x, this version reads %d", ErrUnsupportedFormat, f, recordFormat)
	}
	return readMeta(tx)
}

var errStop = errors.New("stop")

func readMeta(tx *bolt.Tx) (meta, error) {
	mb := tx.Bucket(metaBucket)
	if mb == nil {
		return meta{}, fmt.Errorf("%w: no meta bucket", ErrCorrupt)
	}
	var m meta
	for _, f := range []struct {
		key []byte
		dst *int64
	}{{currentKey, &m.current}, {compactedKey, &m.compacted}} {
		v := mb.Get(f.key)
		if len(v) != 8 {
			return meta{}, fmt.Errorf("%w: meta %s of %d bytes", ErrCorrupt, f.key, len(v))
		}
		*f.dst = int64(binary.BigEndian.Uint64(v))
	}
	if m.current < 0 || m.compacted < 0 || m.compacted > m.current {
		return meta{}, fmt.Errorf("%w: meta current %d, compacted %d", ErrCorrupt, m.current, m.compacted)
	}
	return m, nil
}

func writeMeta(tx *bolt.Tx, m meta) error {
	mb := tx.Bucket(metaBucket)
	if err := mb.Put(currentKey, binary.BigEndian.AppendUint64(nil, uint64(m.current))); err != nil {
		return fmt.Errorf("write meta: %w", err)
	}
	if err := mb.Put(compactedKey, binary.BigEndian.AppendUint64(nil, uint64(m.compacted))); err != nil {
		return fmt.Errorf("write meta: %w", err)
	}
	return nil
}
