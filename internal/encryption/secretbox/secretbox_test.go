package secretbox

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func newBox(t testing.TB, b byte) *Box {
	t.Helper()
	box, err := New(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func TestRoundTrip(t *testing.T) {
	box := newBox(t, 1)
	for _, size := range []int{0, 1, 100, 1024} {
		plain := bytes.Repeat([]byte("s"), size)
		stored, err := box.ToStorage(context.Background(), plain, nil)
		if err != nil {
			t.Fatal(err)
		}
		if size >= 16 && bytes.Contains(stored, plain) { // shorter runs turn up in random bytes
			t.Errorf("%d: plaintext visible", size)
		}
		got, stale, err := box.FromStorage(context.Background(), stored, nil)
		if err != nil || stale || !bytes.Equal(got, plain) {
			t.Errorf("%d: got %q stale=%v err=%v", size, got, stale, err)
		}
	}
}

func TestRejects(t *testing.T) {
	stored, _ := newBox(t, 1).ToStorage(context.Background(), []byte("value"), nil)
	flipped := bytes.Clone(stored)
	flipped[30] ^= 1
	tests := []struct {
		name   string
		box    *Box
		stored []byte
		want   error
	}{
		{"wrong key", newBox(t, 2), stored, ErrOpen},
		{"corrupted", newBox(t, 1), flipped, ErrOpen},
		{"short", newBox(t, 1), stored[:20], ErrShort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := tt.box.FromStorage(context.Background(), tt.stored, nil); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := New(make([]byte, 16)); !errors.Is(err, ErrKeySize) {
		t.Errorf("16-byte key: got %v", err)
	}
}

func FuzzFromStorage(f *testing.F) {
	box := newBox(f, 1)
	s, _ := box.ToStorage(context.Background(), []byte("seed"), nil)
	f.Add(s)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, stored []byte) {
		_, _, _ = box.FromStorage(context.Background(), stored, nil)
	})
}

func BenchmarkToStorage1KiB(b *testing.B) {
	box, plain := newBox(b, 1), bytes.Repeat([]byte("x"), 1024)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := box.ToStorage(context.Background(), plain, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromStorage1KiB(b *testing.B) {
	box := newBox(b, 1)
	stored, _ := box.ToStorage(context.Background(), bytes.Repeat([]byte("x"), 1024), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := box.FromStorage(context.Background(), stored, nil); err != nil {
			b.Fatal(err)
		}
	}
}
