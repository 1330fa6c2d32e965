package bbolt

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/storage"
)

var recordCases = []record{
	{createRev: 1, modRev: 1, value: []byte{}},
	{createRev: 3, modRev: 7, value: []byte("value")},
	{createRev: 1 << 40, modRev: 1<<62 + 5, value: make([]byte, 300)},
}

var logCases = []logEntry{
	{typ: storage.EventCreate, key: []byte("/a"), after: record{createRev: 1, modRev: 1, value: []byte("v")}},
	{typ: storage.EventUpdate, key: []byte("/registry/pods/ns/name"),
		after: record{createRev: 1, modRev: 9, value: []byte("new")},
		prev:  record{createRev: 1, modRev: 4, value: []byte("old")}},
	{typ: storage.EventDelete, key: []byte("/k"), prev: record{createRev: 2, modRev: 3, value: []byte{}}},
}

var cmpRecord = cmp.AllowUnexported(record{}, logEntry{})

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range recordCases {
		got, err := decodeKeyRecord(encodeKeyRecord(r))
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", r, err)
		}
		if diff := cmp.Diff(r, got, cmpRecord); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	for _, e := range logCases {
		got, err := decodeLogEntry(encodeLogEntry(e))
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", e, err)
		}
		if diff := cmp.Diff(e, got, cmpRecord); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	valid := encodeLogEntry(logCases[1])
	tests := []struct {
		name string
		b    []byte
		log  bool
	}{
		{"empty record", nil, false},
		{"wrong format", []byte{9, 1, 1, 0}, false},
		{"zero revision", []byte{recordFormat, 0, 1, 0}, false},
		{"created after modified", []byte{recordFormat, 5, 4, 0}, false},
		{"value past the end", []byte{recordFormat, 1, 1, 5, 'a'}, false},
		{"trailing bytes", []byte{recordFormat, 1, 1, 0, 0}, false},
		{"unterminated varint", []byte{recordFormat, 0x80}, false},
		{"revision above int64", append([]byte{recordFormat}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), false},
		{"empty log entry", nil, true},
		{"unknown type", []byte{recordFormat, 7, 1, 'k'}, true},
		{"error type", []byte{recordFormat, byte(storage.EventError), 1, 'k'}, true},
		{"empty key", []byte{recordFormat, byte(storage.EventCreate), 0, 1, 1, 0}, true},
		{"truncated entry", valid[:len(valid)-1], true},
		{"update changes create revision", encodeLogEntry(logEntry{typ: storage.EventUpdate, key: []byte("/k"),
			after: record{createRev: 2, modRev: 5}, prev: record{createRev: 1, modRev: 4}}), true},
		{"update goes back", encodeLogEntry(logEntry{typ: storage.EventUpdate, key: []byte("/k"),
			after: record{createRev: 1, modRev: 4}, prev: record{createRev: 1, modRev: 4}}), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.log {
				_, err = decodeLogEntry(tc.b)
			} else {
				_, err = decodeKeyRecord(tc.b)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func FuzzDecodeKeyRecord(f *testing.F) {
	for _, r := range recordCases {
		f.Add(encodeKeyRecord(r))
	}
	f.Add([]byte{recordFormat, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeKeyRecord(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if r.createRev < 1 || r.createRev > r.modRev {
			t.Fatalf("accepted revisions %d/%d", r.createRev, r.modRev)
		}
		again, err := decodeKeyRecord(encodeKeyRecord(r))
		if err != nil || !again.equal(r) {
			t.Fatalf("re-encoding %+v gives %+v, %v", r, again, err)
		}
	})
}

func FuzzDecodeLogEntry(f *testing.F) {
	for _, e := range logCases {
		f.Add(encodeLogEntry(e))
	}
	f.Add([]byte{recordFormat, byte(storage.EventDelete), 1, 'k', 1, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeLogEntry(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if len(e.key) == 0 {
			t.Fatal("accepted an empty key")
		}
		again, err := decodeLogEntry(encodeLogEntry(e))
		if err != nil || diffEntries(e, again) {
			t.Fatalf("re-encoding %+v gives %+v, %v", e, again, err)
		}
		// Turning an entry into an event must not fail either.
		_ = e.event(max(e.after.modRev, e.prev.modRev+1))
	})
}

func FuzzDecodeRevKey(f *testing.F) {
	f.Add(revKey(1))
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		rev, err := decodeRevKey(b)
		if err != nil {
			return
		}
		if rev < 1 || string(revKey(rev)) != string(b) {
			t.Fatalf("decodeRevKey(%x) = %d", b, rev)
		}
	})
}

func diffEntries(a, b logEntry) bool {
	return a.typ != b.typ || string(a.key) != string(b.key) || !a.after.equal(b.after) || !a.prev.equal(b.prev)
}
