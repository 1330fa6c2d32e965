package bbolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"github.com/portcullis/portcullis/internal/storage"
)

// Encoding. Every stored value starts with a format byte so that a later
// layout can be told apart. Integers are uvarints; byte strings are a
// uvarint length followed by the bytes.
//
//	keys bucket:  key      -> format, record
//	log bucket:   rev (BE) -> format, type, key, [record after], [record before]
//	record:       createRev, modRev, value
//
// A log entry has the record after the change for creates and updates and
// the record before it for updates and deletes: the first replays history
// for watches, the second undoes it for lists at past revisions.
const recordFormat byte = 1

const (
	// maxKeySize is bbolt's own limit on a key.
	maxKeySize = bolt.MaxKeySize
	// maxValueSize keeps a log entry, which may hold two values, under
	// bbolt's limit on one value.
	maxValueSize = 512 << 20
)

// record is a key's state: its value and the revisions of its history.
// Decoded records alias the bytes they were decoded from.
type record struct {
	createRev int64
	modRev    int64
	value     []byte
}

func (r record) keyValue(key string) storage.KeyValue {
	return storage.KeyValue{Key: key, Value: bytes.Clone(r.value), CreateRevision: r.createRev, ModRevision: r.modRev}
}

func (r record) equal(o record) bool {
	return r.createRev == o.createRev && r.modRev == o.modRev && bytes.Equal(r.value, o.value)
}

// logEntry is one change of the log bucket.
type logEntry struct {
	typ   storage.EventType
	key   []byte
	after record // the key's state after a create or update
	prev  record // the key's state before an update or delete
}

func (e logEntry) hasAfter() bool { return e.typ != storage.EventDelete }
func (e logEntry) hasPrev() bool  { return e.typ != storage.EventCreate }

// event turns the entry written at rev into the watch event it stands for;
// the values are copied out of the database.
func (e logEntry) event(rev int64) storage.Event {
	key := string(e.key)
	switch e.typ {
	case storage.EventCreate:
		return storage.Event{Type: e.typ, KV: e.after.keyValue(key)}
	case storage.EventUpdate:
		prev := e.prev.keyValue(key)
		return storage.Event{Type: e.typ, KV: e.after.keyValue(key), PrevKV: &prev}
	default:
		prev := e.prev.keyValue(key)
		kv := prev
		kv.ModRevision = rev
		return storage.Event{Type: e.typ, KV: kv, PrevKV: &prev}
	}
}

func appendRecord(dst []byte, r record) []byte {
	dst = binary.AppendUvarint(dst, uint64(r.createRev))
	dst = binary.AppendUvarint(dst, uint64(r.modRev))
	dst = binary.AppendUvarint(dst, uint64(len(r.value)))
	return append(dst, r.value...)
}

func encodeKeyRecord(r record) []byte {
	dst := make([]byte, 0, 1+3*binary.MaxVarintLen64+len(r.value))
	return appendRecord(append(dst, recordFormat), r)
}

func encodeLogEntry(e logEntry) []byte {
	dst := make([]byte, 0, 2+7*binary.MaxVarintLen64+len(e.key)+len(e.after.value)+len(e.prev.value))
	dst = append(dst, recordFormat, byte(e.typ))
	dst = binary.AppendUvarint(dst, uint64(len(e.key)))
	dst = append(dst, e.key...)
	if e.hasAfter() {
		dst = appendRecord(dst, e.after)
	}
	if e.hasPrev() {
		dst = appendRecord(dst, e.prev)
	}
	return dst
}

// decodeKeyRecord decodes a value of the keys bucket.
func decodeKeyRecord(b []byte) (record, error) {
	d := decoder{b: b}
	d.format()
	r := d.record()
	return r, d.finish("key record")
}

// decodeLogEntry decodes a value of the log bucket.
func decodeLogEntry(b []byte) (logEntry, error) {
	d := decoder{b: b}
	d.format()
	e := logEntry{typ: storage.EventType(d.byte())}
	if d.err == nil && (e.typ < storage.EventCreate || e.typ > storage.EventDelete) {
		d.fail("unknown change type %d", e.typ)
	}
	e.key = d.bytes()
	if d.err == nil && len(e.key) == 0 {
		d.fail("empty key")
	}
	if e.hasAfter() {
		e.after = d.record()
	}
	if e.hasPrev() {
		e.prev = d.record()
	}
	if d.err == nil && e.typ == storage.EventUpdate && (e.prev.createRev != e.after.createRev || e.prev.modRev >= e.after.modRev) {
		d.fail("update from %d/%d to %d/%d", e.prev.createRev, e.prev.modRev, e.after.createRev, e.after.modRev)
	}
	return e, d.finish("log entry")
}

// decoder reads the encoding above; the first error sticks and later reads
// return zero values, so callers check once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) format() {
	if f := d.byte(); d.err == nil && f != recordFormat {
		d.fail("format %d, want %d", f, recordFormat)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) revision() int64 {
	v := d.uvarint()
	if d.err == nil && (v == 0 || v > math.MaxInt64) {
		d.fail("revision %d out of range", v)
		return 0
	}
	return int64(v)
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("length %d beyond the %d bytes left", n, len(d.b))
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) record() record {
	r := record{createRev: d.revision(), modRev: d.revision()}
	r.value = d.bytes()
	if d.err == nil && r.createRev > r.modRev {
		d.fail("created at %d after last modified at %d", r.createRev, r.modRev)
	}
	return r
}

func (d *decoder) finish(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, what, d.err)
	}
	return nil
}

// revKey is the log bucket key of rev: big-endian so that byte order is
// revision order.
func revKey(rev int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(rev))
}

func decodeRevKey(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: log key of %d bytes", ErrCorrupt, len(b))
	}
	v := binary.BigEndian.Uint64(b)
	if v == 0 || v > math.MaxInt64 {
		return 0, fmt.Errorf("%w: log key revision %d out of range", ErrCorrupt, v)
	}
	return int64(v), nil
}
