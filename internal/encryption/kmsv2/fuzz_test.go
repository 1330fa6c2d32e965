package kmsv2

import (
	"bytes"
	"context"
	"encoding/hex"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

func decodeSeeds() [][]byte {
	ref, _ := hex.DecodeString("0a3025e80ee94151e36f27a1cba59836e07beac027cf5038a5032b11661a3ae6ac0ba279e70bcc2754c1ea698e5f77137ded12056b65792d301a0d656e637279707465642d6b6579")
	valid := encodeObject(validObject())
	unknown := protowire.AppendBytes(protowire.AppendTag(bytes.Clone(valid), 15, protowire.BytesType), []byte("x"))
	return [][]byte{
		nil,
		{0x0a},
		{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f},
		{0x0b, 0x0c},
		valid,
		valid[:len(valid)/2],
		unknown,
		ref,
	}
}

// FuzzDecodeObject: no input panics or hangs the decoder, and whatever it
// accepts encodes to a message it reads back the same.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range decodeSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := decodeObject(b)
		if err != nil {
			return
		}
		again, err := decodeObject(encodeObject(o))
		if err != nil {
			t.Fatalf("re-encoded object does not decode: %v", err)
		}
		if !bytes.Equal(encodeObject(again), encodeObject(o)) {
			t.Fatal("decode(encode(o)) differs from o")
		}
	})
}

// FuzzFromStorage: no stored value panics or hangs a provider; values that
// decode ask the (real, in-process) plugin, which refuses what it did not
// encrypt.
func FuzzFromStorage(f *testing.F) {
	e := newEnv(f, withTimeout(time.Second))
	stored := mustToStorage(f, e.p, "fuzz", key1)
	for _, s := range append(decodeSeeds(), stored, stored[:len(stored)-1], flipByte(stored, 50)) {
		f.Add(s, []byte(key1))
	}
	f.Add(stored, []byte("/registry/secrets/default/other"))
	f.Fuzz(func(t *testing.T, b, dataCtx []byte) {
		out, _, err := e.p.FromStorage(context.Background(), b, dataCtx)
		if err == nil && bytes.Equal(b, stored) && string(out) != "fuzz" {
			t.Fatalf("read %q", out)
		}
	})
}
