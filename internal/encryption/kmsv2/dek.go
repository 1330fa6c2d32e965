package kmsv2

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
)

const (
	// seedSize is the size of a new seed, and the least a decrypted seed
	// may have (kube-apiserver's MinSeedSizeExtendedNonceGCM).
	seedSize = 32
	// infoSize is the random HKDF info written in front of each value.
	infoSize = 32
	// derivedKeySize makes the derived keys AES-256 keys.
	derivedKeySize = 32
)

// dek turns a decrypted DEK source into the AEAD of each value. Its
// secret is key material: it is never printed.
type dek struct {
	kind sourceType
	// seed of a sourceHKDFSeed source.
	seed []byte
	// aead of a sourceAESGCMKey source, built once.
	aead cipher.AEAD
}

// newSeed makes the seed of a new write state. crypto/rand.Read does not
// fail (it crashes the process if the system cannot supply randomness).
func newSeed() []byte {
	seed := make([]byte, seedSize)
	_, _ = rand.Read(seed)
	return seed
}

// newDEK checks the plaintext of a DEK source that the plugin decrypted.
func newDEK(kind sourceType, plaintext []byte) (*dek, error) {
	switch kind {
	case sourceHKDFSeed:
		if len(plaintext) < seedSize {
			return nil, fmt.Errorf("invalid seed length %d used for key generation", len(plaintext))
		}
		return &dek{kind: kind, seed: plaintext}, nil
	case sourceAESGCMKey:
		block, err := aes.NewCipher(plaintext)
		if err != nil {
			return nil, fmt.Errorf("invalid AES-GCM key: %w", err)
		}
		aead, err := cipher.NewGCMWithRandomNonce(block)
		if err != nil {
			return nil, fmt.Errorf("AES-GCM: %w", err)
		}
		return &dek{kind: kind, aead: aead}, nil
	}
	return nil, fmt.Errorf("unknown encryptedDEKSourceType: %s", kind)
}

// derive is the AEAD of the value whose info is info: AES-256-GCM under
// HKDF-Expand(SHA-256, seed, info), with the nonce written in front.
func (d *dek) derive(info []byte) (cipher.AEAD, error) {
	key, err := hkdf.Expand(sha256.New, d.seed, string(info), derivedKeySize)
	if err != nil {
		return nil, fmt.Errorf("failed to KDF expand seed with info: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCMWithRandomNonce(block)
}

// sealAppend appends a value encrypted with a freshly derived key to dst:
// info || nonce || ciphertext || tag.
func (d *dek) sealAppend(dst, plaintext, additionalData []byte) ([]byte, error) {
	if d.kind != sourceHKDFSeed {
		// AES_GCM_KEY sources come from storage and carry no nonce
		// state: writing with them could repeat a nonce.
		return nil, fmt.Errorf("refusing to write with a %s source", d.kind)
	}
	start := len(dst)
	dst = append(dst, make([]byte, infoSize)...)
	info := dst[start:]
	_, _ = rand.Read(info)
	aead, err := d.derive(info)
	if err != nil {
		return nil, err
	}
	return aead.Seal(dst, nil, plaintext, additionalData), nil
}

// open decrypts the encryptedData of a value.
func (d *dek) open(data, additionalData []byte) ([]byte, error) {
	aead := d.aead
	if d.kind == sourceHKDFSeed {
		if len(data) < infoSize {
			return nil, fmt.Errorf("the stored data was shorter than the required size")
		}
		var err error
		if aead, err = d.derive(data[:infoSize]); err != nil {
			return nil, err
		}
		data = data[infoSize:]
	}
	out, err := aead.Open(nil, nil, data, additionalData)
	if err != nil {
		// The cipher's own message says nothing more, and nothing here
		// may carry key material.
		return nil, fmt.Errorf("message authentication failed")
	}
	return out, nil
}
