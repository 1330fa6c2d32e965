package secretbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"golang.org/x/crypto/nacl/secretbox"
)

const nonceSize = 24

var (
	// ErrShort is a stored value too short to hold a nonce and a tag.
	ErrShort = errors.New("the stored data was shorter than the required size")
	// ErrOpen is a value that does not authenticate under the key: the
	// wrong key, or a corrupted value.
	ErrOpen = errors.New("secretbox: the value does not open with this key")
	// ErrKeySize is a key that is not 32 bytes long.
	ErrKeySize = errors.New("secretbox: the key must be 32 bytes long")
)

// Box is the secretbox provider with one key.
type Box struct {
	key [32]byte
}

// New returns the provider for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != 32 {
		return nil, ErrKeySize
	}
	b := &Box{}
	copy(b.key[:], key)
	return b, nil
}

// ToStorage seals plaintext under a random nonce. Secretbox has no
// additional data, so dataCtx is not bound (as in kube-apiserver).
func (b *Box) ToStorage(_ context.Context, plaintext, _ []byte) ([]byte, error) {
	out := make([]byte, nonceSize, nonceSize+len(plaintext)+secretbox.Overhead)
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("secretbox: reading a nonce: %w", err)
	}
	var nonce [nonceSize]byte
	copy(nonce[:], out)
	return secretbox.Seal(out, plaintext, &nonce, &b.key), nil
}

// FromStorage opens a value sealed by ToStorage.
func (b *Box) FromStorage(_ context.Context, stored, _ []byte) ([]byte, bool, error) {
	if len(stored) < nonceSize+secretbox.Overhead {
		return nil, false, ErrShort
	}
	var nonce [nonceSize]byte
	copy(nonce[:], stored)
	out, ok := secretbox.Open(nil, stored[nonceSize:], &nonce, &b.key)
	if !ok {
		return nil, false, ErrOpen
	}
	return out, false, nil
}
