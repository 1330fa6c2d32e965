package kmsv2

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

func validObject() *encryptedObject {
	return &encryptedObject{
		data:        []byte("ciphertext"),
		keyID:       "key-1",
		dekSource:   []byte("encrypted-seed"),
		annotations: map[string][]byte{"b.example.com": []byte("2"), "a.example.com": []byte("1")},
		sourceType:  sourceHKDFSeed,
	}
}

func TestObjectRoundTrip(t *testing.T) {
	tests := map[string]*encryptedObject{
		"full":           validObject(),
		"no annotations": {data: []byte{0}, keyID: "k", dekSource: []byte{1}, sourceType: sourceHKDFSeed},
		"AES_GCM_KEY":    {data: []byte{0}, keyID: "k", dekSource: []byte{1}},
		"empty value":    {data: []byte{0}, keyID: "k", dekSource: []byte{1}, annotations: map[string][]byte{"x.example.com": nil}},
	}
	for name, o := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := decodeObject(encodeObject(o))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(o, got, cmp.AllowUnexported(encryptedObject{}), cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); d != "" {
				t.Fatalf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

// TestReferenceVectors reads values that kube-apiserver wrote, and encodes
// their objects to the same bytes.
func TestReferenceVectors(t *testing.T) {
	var file struct {
		Vectors []struct {
			Name, Key, DataCtx, Plaintext, KeyID, Stored string
		}
	}
	b, err := os.ReadFile("testdata/reference_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	for _, v := range file.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			stored, _ := hex.DecodeString(v.Stored)
			key, _ := hex.DecodeString(v.Key)
			o, err := decodeObject(stored)
			if err != nil {
				t.Fatal(err)
			}
			if o.keyID != v.KeyID {
				t.Errorf("keyID %q, want %q", o.keyID, v.KeyID)
			}
			if got := encodeObject(o); !bytes.Equal(got, stored) {
				t.Errorf("re-encoded:\n got %x\nwant %x", got, stored)
			}
			d, err := newDEK(o.sourceType, key)
			if err != nil {
				t.Fatal(err)
			}
			out, err := d.open(o.data, []byte(v.DataCtx))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != v.Plaintext {
				t.Fatalf("plaintext %q, want %q", out, v.Plaintext)
			}
			if _, err := d.open(o.data, []byte(v.DataCtx+"x")); err == nil {
				t.Fatal("opened under another storage key")
			}
		})
	}
}

func TestDecodeObjectErrors(t *testing.T) {
	valid := encodeObject(validObject())
	tag := func(num protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(nil, num, typ) }
	withField := func(extra ...[]byte) []byte {
		b := bytes.Clone(valid)
		for _, e := range extra {
			b = append(b, e...)
		}
		return b
	}
	bytesField := func(num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(tag(num, protowire.BytesType), v)
	}
	entry := func(k string, v []byte) []byte {
		e := bytesField(fieldEntryKey, []byte(k))
		e = append(e, bytesField(fieldEntryValue, v)...)
		return bytesField(fieldAnnotations, e)
	}
	without := func(mut func(*encryptedObject)) []byte {
		o := validObject()
		mut(o)
		return encodeObject(o)
	}

	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "encrypted data is empty"},
		{"truncated", valid[:len(valid)-3], "unexpected EOF"},
		{"bad tag", []byte{0x80}, "unexpected EOF"},
		{"field zero", []byte{0x02, 0x00}, "invalid field number"},
		{"data as varint", withField(protowire.AppendVarint(tag(fieldData, protowire.VarintType), 1)), "field 1 has wire type 0, want 2"},
		{"type as bytes", withField(bytesField(fieldSourceType, []byte{1})), "field 5 has wire type 2, want 0"},
		{"group", withField(tag(9, protowire.StartGroupType)), "unsupported wire type 3"},
		{"wire type 7", withField(tag(9, 7)), "unsupported wire type 7"},
		{"unknown type", withField(protowire.AppendVarint(tag(fieldSourceType, protowire.VarintType), 7)), "unknown encryptedDEKSourceType: 7"},
		{"no data", without(func(o *encryptedObject) { o.data = nil }), "encrypted data is empty"},
		{"no key id", without(func(o *encryptedObject) { o.keyID = "" }), "failed to validate key id: keyID is empty"},
		{"long key id", without(func(o *encryptedObject) { o.keyID = strings.Repeat("k", 1025) }), "keyID is 1025 bytes, which exceeds the max size of 1024"},
		{"bad utf8 key id", without(func(o *encryptedObject) { o.keyID = "\xff" }), "keyID is not valid UTF-8"},
		{"no source", without(func(o *encryptedObject) { o.dekSource = nil }), "encrypted DEK source is empty"},
		{"long source", without(func(o *encryptedObject) { o.dekSource = make([]byte, 1025) }), "encrypted DEK source is 1025 bytes, which exceeds the max size of 1024"},
		{"annotation not a domain", withField(entry("nodots", nil)), "should be a domain with at least two segments"},
		{"annotation uppercase", withField(entry("A.example.com", nil)), "annotations"},
		{"annotation without key", withField(bytesField(fieldAnnotations, bytesField(fieldEntryValue, []byte("v")))), "annotations: Required value"},
		{"annotations too large", withField(entry("big.example.com", make([]byte, 32*1024))), "total size of annotations exceeds the max size of 32768"},
		{"annotation entry truncated", withField(bytesField(fieldAnnotations, []byte{0x0a, 0x05, 'a'})), "annotation field 1: unexpected EOF"},
		{"annotation entry group", withField(bytesField(fieldAnnotations, tag(3, protowire.StartGroupType))), "unsupported wire type 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeObject(tt.in)
			if !errors.Is(err, ErrInvalidObject) {
				t.Fatalf("got %v, want ErrInvalidObject", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestDecodeObjectSkipsUnknownFields(t *testing.T) {
	b := encodeObject(validObject())
	b = protowire.AppendVarint(protowire.AppendTag(b, 10, protowire.VarintType), 5)
	b = protowire.AppendFixed32(protowire.AppendTag(b, 11, protowire.Fixed32Type), 5)
	b = protowire.AppendFixed64(protowire.AppendTag(b, 12, protowire.Fixed64Type), 5)
	b = protowire.AppendBytes(protowire.AppendTag(b, 13, protowire.BytesType), []byte("future"))
	o, err := decodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	if o.keyID != "key-1" {
		t.Fatalf("keyID %q", o.keyID)
	}
}

func TestDecodeObjectLastFieldWins(t *testing.T) {
	b := encodeObject(validObject())
	b = protowire.AppendString(protowire.AppendTag(b, fieldKeyID, protowire.BytesType), "key-2")
	o, err := decodeObject(b)
	if err != nil || o.keyID != "key-2" {
		t.Fatalf("keyID %q, %v; want key-2 as protobuf reads it", o.keyID, err)
	}
}

func TestEncodeObjectFieldOrder(t *testing.T) {
	// encryptedData first, then keyID, DEK source, sorted annotations and
	// the type: the order protobuf writes, so the bytes match.
	b := encodeObject(validObject())
	var nums []protowire.Number
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		b = b[n:]
		nums = append(nums, num)
	}
	if d := cmp.Diff([]protowire.Number{1, 2, 3, 4, 4, 5}, nums); d != "" {
		t.Fatal(d)
	}
}
