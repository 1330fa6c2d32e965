package bbolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// This file reads bbolt's page format without bbolt, to vet a file before
// bbolt maps it: bbolt trusts its file, so a page it reads past the end of
// a truncated file faults (SIGBUS) and a garbled page makes it panic, even
// in the goroutine it starts to rebuild the freelist on open, where no
// recover can reach. The format, as go.etcd.io/bbolt v1.5 writes it in the
// machine's byte order (internal/common):
//
//	page header (16 bytes): id u64, flags u16, count u16, overflow u32;
//	  a page spans overflow+1 pages and starts with count elements
//	branch element (16): pos u32, ksize u32, child pgid u64; key at element+pos
//	leaf element (16):   flags u32, pos u32, ksize u32, vsize u32; key at
//	  element+pos, value right after it
//	meta (after the header of pages 0 and 1): magic u32, version u32,
//	  pageSize u32, flags u32, root bucket {pgid u64, sequence u64},
//	  freelist pgid u64, high-water pgid u64, txid u64, checksum u64
//	  (FNV-1a 64 of the fields before it)
//	bucket value: root pgid u64, sequence u64, then, when root is 0, an
//	  inline leaf page holding the bucket's keys
//	freelist page: count page ids u64 (count 0xFFFF: the first u64 is the count)
//
// The walk checks what bbolt's own consistency check (tx.Check) checks, which
// is what bbolt's open panics on, and in addition every bound bbolt assumes:
// each reachable page lies below the high-water mark, says it is the page it
// was reached as, is a branch or leaf page reached once, and holds its
// elements, keys and values inside itself; keys are not empty and in order
// down the tree; bucket values and inline pages are well formed.

const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	pageHeaderSize  = 16
	elementSize     = 16 // a branch and a leaf element alike
	metaSize        = 64
	metaSummed      = 56 // the meta fields the checksum covers
	bucketValueSize = 16 // root pgid and sequence
	noFreelist      = ^uint64(0)

	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01

	// bbolt looks for the second meta page at these page sizes.
	minPageSize = 1 << 10
	maxPageSize = 1 << 24

	// maxWalkDepth bounds the nesting of pages and buckets: bbolt's trees
	// are a few levels deep, so this only stops a crafted cycle.
	maxWalkDepth = 256
)

var order = binary.NativeEndian

// defaultPageSize is the page size bbolt gives a new file.
var defaultPageSize = os.Getpagesize()

// boltMeta is one decoded meta page.
type boltMeta struct {
	magic, version, pageSize, flags uint32
	root, sequence                  uint64
	freelist, pgid, txid, checksum  uint64
}

func decodeMeta(page []byte) boltMeta {
	b := page[pageHeaderSize:]
	return boltMeta{
		magic:    order.Uint32(b[0:]),
		version:  order.Uint32(b[4:]),
		pageSize: order.Uint32(b[8:]),
		flags:    order.Uint32(b[12:]),
		root:     order.Uint64(b[16:]),
		sequence: order.Uint64(b[24:]),
		freelist: order.Uint64(b[32:]),
		pgid:     order.Uint64(b[40:]),
		txid:     order.Uint64(b[48:]),
		checksum: order.Uint64(b[56:]),
	}
}

// metaPage is what one of the two meta page slots holds.
type metaPage struct {
	meta  boltMeta
	magic bool  // the bbolt magic number is there
	other bool  // an intact meta page of another bbolt format version
	err   error // why it cannot be used; nil when valid
}

// readMetaAt decodes the meta page at offset off and checks it as bbolt
// does: magic number, checksum, version.
func readMetaAt(f file, off int64) metaPage {
	if off+pageHeaderSize+metaSize > f.size() {
		return metaPage{err: fmt.Errorf("the file ends before it (offset %d)", off)}
	}
	buf, err := f.bytes(off, pageHeaderSize+metaSize)
	if err != nil {
		return metaPage{err: fmt.Errorf("read at offset %d: %w", off, err)}
	}
	m := decodeMeta(buf)
	p := metaPage{meta: m, magic: m.magic == boltMagic}
	h := fnv.New64a()
	h.Write(buf[pageHeaderSize : pageHeaderSize+metaSummed])
	switch {
	case !p.magic:
		p.err = fmt.Errorf("no bbolt magic number")
	case m.checksum != h.Sum64():
		p.err = fmt.Errorf("checksum mismatch")
	case m.version != boltVersion:
		p.other = true
		p.err = fmt.Errorf("bbolt format version %d, this build reads %d", m.version, boltVersion)
	case m.pageSize < minPageSize || m.pageSize > maxPageSize:
		p.err = fmt.Errorf("page size %d outside [%d, %d]", m.pageSize, minPageSize, maxPageSize)
	}
	return p
}

// fileReport is what vetting a file found, for a file that bbolt may open.
type fileReport struct {
	pageSize int
	txid     uint64
	pages    uint64 // the high-water mark: pages in use or free
	reached  int    // pages the walk read
	// warnings are damage bbolt recovers from by design: one meta page
	// unreadable, as a torn last commit leaves it.
	warnings []string
}

// vetFile reads a bbolt file and returns an error wrapping ErrEmptyFile,
// ErrNotBolt, ErrUnsupportedFormat or ErrDamaged when bbolt cannot be
// trusted to open it. It reads every page reachable from the meta page
// bbolt would use, so its cost grows with the data.
func vetFile(f file) (fileReport, error) {
	size := f.size()
	if size == 0 {
		return fileReport{}, fmt.Errorf("%w: 0 bytes", ErrEmptyFile)
	}
	m, rep, err := chooseMeta(f)
	if err != nil {
		return rep, err
	}
	ps := uint64(m.pageSize)
	switch {
	case m.pgid < 3 || m.pgid > (1<<62)/ps:
		return rep, fmt.Errorf("%w: the meta page of transaction %d counts %d pages", ErrDamaged, m.txid, m.pgid)
	case m.pgid*ps > uint64(size):
		return rep, fmt.Errorf("%w: truncated: the file has %d bytes, its meta page (transaction %d) needs %d pages of %d bytes (%d bytes)",
			ErrDamaged, size, m.txid, m.pgid, ps, m.pgid*ps)
	case m.root < 2 || m.root >= m.pgid:
		return rep, fmt.Errorf("%w: the meta page of transaction %d puts the root bucket at page %d, outside 2..%d", ErrDamaged, m.txid, m.root, m.pgid-1)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid):
		return rep, fmt.Errorf("%w: the meta page of transaction %d puts the freelist at page %d, outside 2..%d", ErrDamaged, m.txid, m.freelist, m.pgid-1)
	}
	w := &walker{f: f, ps: ps, hwm: m.pgid, seen: newBitset(m.pgid)}
	w.seen.set(0)
	w.seen.set(1)
	if m.freelist != noFreelist {
		if err := w.freelist(m.freelist); err != nil {
			return rep, err
		}
	}
	if _, err := w.tree(walkAt{bucket: "", id: m.root}, nil, nil, 0); err != nil {
		return rep, err
	}
	if w.freed != nil {
		for id := range m.pgid {
			if w.freed.has(id) && w.seen.has(id) {
				return rep, fmt.Errorf("%w: page %d is both in use and on the freelist", ErrDamaged, id)
			}
		}
	}
	rep.pageSize, rep.txid, rep.pages, rep.reached = int(ps), m.txid, m.pgid, w.reached
	return rep, nil
}

// chooseMeta finds the meta page bbolt would use: the valid one with the
// higher transaction id.
func chooseMeta(f file) (boltMeta, fileReport, error) {
	var rep fileReport
	slots := [2]metaPage{readMetaAt(f, 0)}
	magic := slots[0].magic
	if slots[0].err == nil {
		slots[1] = readMetaAt(f, int64(slots[0].meta.pageSize))
	} else {
		// Without page 0 the page size is unknown: look for page 1 where
		// each page size would put it, as bbolt does, and otherwise report
		// what the usual place holds.
		slots[1] = readMetaAt(f, int64(defaultPageSize))
		for ps := int64(minPageSize); ps <= maxPageSize && ps < f.size(); ps <<= 1 {
			p := readMetaAt(f, ps)
			magic = magic || p.magic
			if p.err == nil && int64(p.meta.pageSize) == ps {
				slots[1] = p
				break
			}
		}
	}
	magic = magic || slots[1].magic
	valid := func(i int) bool { return slots[i].err == nil }
	switch {
	case !valid(0) && !valid(1):
		if !magic && !boltPages(f) {
			return boltMeta{}, rep, fmt.Errorf("%w: no bbolt meta page at its start (it begins %s)", ErrNotBolt, firstBytes(f))
		}
		if slots[0].other || slots[1].other {
			return boltMeta{}, rep, fmt.Errorf("%w: meta page 0: %v; meta page 1: %v", ErrUnsupportedFormat, slots[0].err, slots[1].err)
		}
		return boltMeta{}, rep, fmt.Errorf("%w: both meta pages are unreadable: page 0: %v; page 1: %v", ErrDamaged, slots[0].err, slots[1].err)
	case valid(0) && valid(1):
		if slots[0].meta.pageSize != slots[1].meta.pageSize {
			return boltMeta{}, rep, fmt.Errorf("%w: the meta pages disagree on the page size: %d and %d", ErrDamaged, slots[0].meta.pageSize, slots[1].meta.pageSize)
		}
		if slots[1].meta.txid > slots[0].meta.txid {
			return slots[1].meta, rep, nil
		}
		return slots[0].meta, rep, nil
	}
	good, bad := 0, 1
	if !valid(0) {
		good, bad = 1, 0
	}
	m := slots[good].meta
	rep.warnings = append(rep.warnings, fmt.Sprintf(
		"meta page %d is unreadable (%v); bbolt uses meta page %d (transaction %d) instead: if the unreadable page held the newer transaction %d, the writes of that last commit are lost",
		bad, slots[bad].err, good, m.txid, m.txid+1))
	return m, rep, nil
}

// boltPages tells a bbolt file whose meta pages are both destroyed from a
// file that is not bbolt's: one of its first data pages, at one of the
// page sizes bbolt uses, says it is the page it is.
func boltPages(f file) bool {
	for ps := int64(minPageSize); ps <= maxPageSize; ps <<= 1 {
		for id := int64(2); id < 8 && (id+1)*ps <= f.size(); id++ {
			hdr, err := f.bytes(id*ps, pageHeaderSize)
			if err != nil {
				break
			}
			fl := order.Uint16(hdr[8:])
			if order.Uint64(hdr) == uint64(id) && (fl == branchPageFlag || fl == leafPageFlag || fl == freelistPageFlag) {
				return true
			}
		}
	}
	return false
}

// firstBytes quotes the start of a file that is not bbolt's, to help tell
// what it is.
func firstBytes(f file) string {
	b, err := f.bytes(0, min(f.size(), 16))
	if err != nil {
		return "unreadably"
	}
	return strconv.Quote(string(b))
}

// walkAt says where the walk is, for messages.
type walkAt struct {
	bucket string // the bucket path, "" for the root bucket
	id     uint64 // the page
	parent uint64 // the page that points to it, 0 for a bucket's root
}

func (a walkAt) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "page %d", a.id)
	if a.bucket != "" {
		fmt.Fprintf(&b, " of bucket %s", a.bucket)
	}
	if a.parent != 0 {
		fmt.Fprintf(&b, ", below page %d", a.parent)
	}
	return b.String()
}

type walker struct {
	f       file
	ps      uint64
	hwm     uint64
	seen    bitset // pages reached, with their overflow
	freed   bitset // pages on a synced freelist; nil without one
	reached int
}

func (w *walker) damaged(at walkAt, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrDamaged, at, fmt.Sprintf(format, args...))
}

// page reads the page span at.id after checking its header.
func (w *walker) page(at walkAt, want string, flags ...uint16) ([]byte, error) {
	if at.id < 2 || at.id >= w.hwm {
		return nil, w.damaged(at, "outside the pages in use, 2..%d", w.hwm-1)
	}
	buf, err := w.f.bytes(int64(at.id*w.ps), pageHeaderSize)
	if err != nil {
		return nil, w.damaged(at, "read: %v", err)
	}
	id, fl, overflow := order.Uint64(buf), order.Uint16(buf[8:]), uint64(order.Uint32(buf[12:]))
	switch {
	case id != at.id:
		return nil, w.damaged(at, "its header says it is page %d", id)
	case !slices.Contains(flags, fl):
		return nil, w.damaged(at, "type %#02x, want a %s page", fl, want)
	case overflow >= w.hwm-at.id:
		return nil, w.damaged(at, "%d overflow pages run past the pages in use", overflow)
	}
	for i := at.id; i <= at.id+overflow; i++ {
		if w.seen.has(i) {
			return nil, w.damaged(at, "page %d is reached twice", i)
		}
		w.seen.set(i)
	}
	w.reached++
	if buf, err = w.f.bytes(int64(at.id*w.ps), int64((overflow+1)*w.ps)); err != nil {
		return nil, w.damaged(at, "read: %v", err)
	}
	return buf, nil
}

// freelist checks a freelist that bbolt synced to a page; files portcullis
// writes have none, it rebuilds the freelist on open instead.
func (w *walker) freelist(id uint64) error {
	at := walkAt{bucket: "(freelist)", id: id}
	p, err := w.page(at, "freelist", freelistPageFlag)
	if err != nil {
		return err
	}
	start, count := uint64(pageHeaderSize), uint64(order.Uint16(p[10:]))
	if count == 0xFFFF {
		if len(p) < pageHeaderSize+8 {
			return w.damaged(at, "no room for its count")
		}
		count, start = order.Uint64(p[pageHeaderSize:]), start+8
	}
	if count > (uint64(len(p))-start)/8 {
		return w.damaged(at, "%d page ids do not fit in it", count)
	}
	w.freed = newBitset(w.hwm)
	for i := range count {
		f := order.Uint64(p[start+8*i:])
		switch {
		case f < 2 || f >= w.hwm:
			return w.damaged(at, "frees page %d, outside 2..%d", f, w.hwm-1)
		case w.freed.has(f):
			return w.damaged(at, "frees page %d twice", f)
		}
		w.freed.set(f)
	}
	return nil
}

// tree checks the page at.id and the pages below it: every key in
// [lo, hi) (nil: unbounded) and in order, as bbolt's check wants. It
// returns the last key of the subtree.
func (w *walker) tree(at walkAt, lo, hi []byte, depth int) ([]byte, error) {
	if depth > maxWalkDepth {
		return nil, w.damaged(at, "nested more than %d deep", maxWalkDepth)
	}
	p, err := w.page(at, "branch or leaf", branchPageFlag, leafPageFlag)
	if err != nil {
		return nil, err
	}
	if order.Uint16(p[8:]) == leafPageFlag {
		return w.leaf(at, p, lo, hi, depth)
	}
	count := int(order.Uint16(p[10:]))
	switch {
	case count == 0:
		// bbolt's search of a branch page reads its first element.
		return nil, w.damaged(at, "a branch page without elements")
	case pageHeaderSize+count*elementSize > len(p):
		return nil, w.damaged(at, "%d elements do not fit in it", count)
	}
	keys := make([][]byte, count)
	children := make([]uint64, count)
	for i := range count {
		e := pageHeaderSize + i*elementSize
		pos, ksize := uint64(order.Uint32(p[e:])), uint64(order.Uint32(p[e+4:]))
		switch {
		case ksize == 0:
			return nil, w.damaged(at, "key %d is empty", i)
		case uint64(e)+pos+ksize > uint64(len(p)):
			return nil, w.damaged(at, "key %d runs past the page", i)
		}
		keys[i] = p[uint64(e)+pos : uint64(e)+pos+ksize]
		children[i] = order.Uint64(p[e+8:])
	}
	last, running := []byte(nil), lo
	for i := range count {
		if err := keyOrder(keys[i], i, running, hi); err != nil {
			return nil, w.damaged(at, "branch key %d: %v", i, err)
		}
		next := hi
		if i+1 < count {
			next = keys[i+1]
		}
		last, err = w.tree(walkAt{bucket: at.bucket, id: children[i], parent: at.id}, keys[i], next, depth+1)
		if err != nil {
			return nil, err
		}
		running = last
	}
	return last, nil
}

// keyOrder is bbolt's key order rule for the key at index i of a page:
// the first at or after the running minimum, later ones strictly after the
// previous key, all before hi.
func keyOrder(key []byte, i int, prev, hi []byte) error {
	c := bytes.Compare(prev, key)
	switch {
	case i == 0 && prev != nil && c > 0, i > 0 && c >= 0:
		return fmt.Errorf("out of order")
	case hi != nil && bytes.Compare(key, hi) >= 0:
		return fmt.Errorf("not below the next key of its parent")
	}
	return nil
}

// leaf checks a leaf page (from disk, or inline in a bucket value) and the
// buckets it holds, and returns its last key.
func (w *walker) leaf(at walkAt, p []byte, lo, hi []byte, depth int) ([]byte, error) {
	count := int(order.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > len(p) {
		return nil, w.damaged(at, "%d elements do not fit in it", count)
	}
	prev := lo
	for i := range count {
		e := uint64(pageHeaderSize + i*elementSize)
		flags := order.Uint32(p[e:])
		pos, ksize, vsize := uint64(order.Uint32(p[e+4:])), uint64(order.Uint32(p[e+8:])), uint64(order.Uint32(p[e+12:]))
		switch {
		case ksize == 0:
			return nil, w.damaged(at, "key %d is empty", i)
		case e+pos+ksize+vsize > uint64(len(p)):
			return nil, w.damaged(at, "element %d runs past the page", i)
		}
		key := p[e+pos : e+pos+ksize]
		if err := keyOrder(key, i, prev, hi); err != nil {
			return nil, w.damaged(at, "key %d: %v", i, err)
		}
		prev = key
		if flags&bucketLeafFlag == 0 {
			continue
		}
		if err := w.bucket(at, key, p[e+pos+ksize:e+pos+ksize+vsize], depth); err != nil {
			return nil, err
		}
	}
	if count == 0 {
		return nil, nil
	}
	return prev, nil
}

// bucket checks the bucket stored under key with value v.
func (w *walker) bucket(at walkAt, key, v []byte, depth int) error {
	path := at.bucket + "/" + strconv.Quote(string(key))
	if at.bucket == "" {
		path = strconv.Quote(string(key))
	}
	if len(v) < bucketValueSize {
		return w.damaged(at, "bucket %s has a value of %d bytes", path, len(v))
	}
	if root := order.Uint64(v); root != 0 {
		_, err := w.tree(walkAt{bucket: path, id: root}, nil, nil, depth+1)
		return err
	}
	inline := v[bucketValueSize:]
	in := walkAt{bucket: path + " (inline)", id: at.id}
	if len(inline) < pageHeaderSize {
		return w.damaged(in, "no room for the inline page header")
	}
	if fl := order.Uint16(inline[8:]); fl != leafPageFlag {
		return w.damaged(in, "inline page of type %#02x, want a leaf page", fl)
	}
	// bbolt takes an inline page's id for the page to free when the
	// bucket outgrows it: it must be 0.
	if id := order.Uint64(inline); id != 0 {
		return w.damaged(in, "inline page says it is page %d", id)
	}
	if depth > maxWalkDepth {
		return w.damaged(in, "nested more than %d deep", maxWalkDepth)
	}
	_, err := w.leaf(in, inline, nil, nil, depth+1)
	return err
}

// file is the bytes of a file to vet.
type file interface {
	size() int64
	// bytes returns n bytes at off, which the caller has checked are in the
	// file. They are only valid until vetting ends.
	bytes(off, n int64) ([]byte, error)
}

// mapped is a file mapped into memory, or held in it.
type mapped []byte

func (m mapped) size() int64 { return int64(len(m)) }
func (m mapped) bytes(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off+n > int64(len(m)) {
		return nil, io.ErrUnexpectedEOF
	}
	return m[off : off+n : off+n], nil
}

// readFile reads a file on demand, where it cannot be mapped.
type readFile struct {
	r io.ReaderAt
	n int64
}

func (f readFile) size() int64 { return f.n }
func (f readFile) bytes(off, n int64) ([]byte, error) {
	b := make([]byte, n)
	_, err := f.r.ReadAt(b, off)
	return b, err
}

// bitset is a set of page ids below a bound.
type bitset []uint64

func newBitset(n uint64) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i uint64) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i uint64)      { b[i/64] |= 1 << (i % 64) }
