package kmsv2

import (
	"bytes"
	"context"
	"testing"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/encryption/kmsv2/
func BenchmarkToStorage1KiB(b *testing.B) {
	e := newEnv(b)
	plaintext := bytes.Repeat([]byte("s"), 1024)
	ctx := context.Background()
	b.SetBytes(int64(len(plaintext)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.p.ToStorage(ctx, plaintext, []byte(key1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromStorage1KiB reads with the seed in the DEK cache: no plugin
// call, only decoding, key derivation and AES-GCM.
func BenchmarkFromStorage1KiB(b *testing.B) {
	e := newEnv(b)
	stored := mustToStorage(b, e.p, string(bytes.Repeat([]byte("s"), 1024)), key1)
	ctx := context.Background()
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.p.FromStorage(ctx, stored, []byte(key1)); err != nil {
			b.Fatal(err)
		}
	}
}
