package aes

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

var (
	// ErrShort is a stored value too short to hold a nonce or IV and a tag.
	ErrShort = errors.New("the stored data was shorter than the required size")
	// ErrBlockSize is CBC data that is not whole blocks.
	ErrBlockSize = errors.New("the stored data is not a multiple of the block size")
	// ErrPadding is CBC data whose PKCS#7 padding is wrong: the wrong key,
	// or a corrupted value.
	ErrPadding = errors.New("invalid padding on input")
)

// GCM is the aesgcm provider with one key.
type GCM struct {
	aead cipher.AEAD
}

// NewGCM returns the aesgcm provider for a 16, 24 or 32 byte key.
func NewGCM(key []byte) (*GCM, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("aesgcm: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("aesgcm: %w", err)
	}
	return &GCM{aead: aead}, nil
}

// ToStorage seals plaintext under a random 12-byte nonce, binding dataCtx.
func (g *GCM) ToStorage(_ context.Context, plaintext, dataCtx []byte) ([]byte, error) {
	ns := g.aead.NonceSize()
	out := make([]byte, ns, ns+len(plaintext)+g.aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("aesgcm: reading a nonce: %w", err)
	}
	return g.aead.Seal(out, out[:ns], plaintext, dataCtx), nil
}

// FromStorage opens a value sealed by ToStorage under the same dataCtx.
func (g *GCM) FromStorage(_ context.Context, stored, dataCtx []byte) ([]byte, bool, error) {
	ns := g.aead.NonceSize()
	if len(stored) < ns+g.aead.Overhead() {
		return nil, false, ErrShort
	}
	out, err := g.aead.Open(nil, stored[:ns], stored[ns:], dataCtx)
	if err != nil {
		return nil, false, err
	}
	return out, false, nil
}

// CBC is the aescbc provider with one key.
type CBC struct {
	block cipher.Block
}

// NewCBC returns the aescbc provider for a 16, 24 or 32 byte key.
func NewCBC(key []byte) (*CBC, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("aescbc: %w", err)
	}
	return &CBC{block: block}, nil
}

// ToStorage encrypts PKCS#7-padded plaintext under a random IV. dataCtx is
// not used: CBC has nothing to bind it with.
func (c *CBC) ToStorage(_ context.Context, plaintext, _ []byte) ([]byte, error) {
	bs := aes.BlockSize
	pad := bs - len(plaintext)%bs
	out := make([]byte, bs+len(plaintext)+pad)
	if _, err := rand.Read(out[:bs]); err != nil {
		return nil, fmt.Errorf("aescbc: reading an IV: %w", err)
	}
	body := out[bs:]
	copy(body, plaintext)
	for i := len(plaintext); i < len(body); i++ {
		body[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(c.block, out[:bs]).CryptBlocks(body, body)
	return out, nil
}

// FromStorage decrypts a value written by ToStorage.
func (c *CBC) FromStorage(_ context.Context, stored, _ []byte) ([]byte, bool, error) {
	bs := aes.BlockSize
	if len(stored) < 2*bs {
		return nil, false, ErrShort
	}
	body := stored[bs:]
	if len(body)%bs != 0 {
		return nil, false, ErrBlockSize
	}
	out := make([]byte, len(body))
	cipher.NewCBCDecrypter(c.block, stored[:bs]).CryptBlocks(out, body)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > bs {
		return nil, false, ErrPadding
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, false, ErrPadding
		}
	}
	return out[:len(out)-pad], false, nil
}
