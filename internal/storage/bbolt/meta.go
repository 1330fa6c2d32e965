package bbolt

import (
	"encoding/binary"
	"fmt"

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

// initBuckets creates the layout in a new file and checks the format of an
// existing one.
func initBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{keysBucket, logBucket, metaBucket} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	mb := tx.Bucket(metaBucket)
	switch f := mb.Get(formatKey); {
	case f == nil:
		if err := mb.Put(formatKey, []byte{recordFormat}); err != nil {
			return fmt.Errorf("write format: %w", err)
		}
		return writeMeta(tx, meta{})
	case len(f) != 1 || f[0] != recordFormat:
		return fmt.Errorf("%w: format %x, this version reads %d", ErrUnsupportedFormat, f, recordFormat)
	}
	return nil
}

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
