package serviceaccount

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/keyutil"
)

// Generated key files, named as kubeadm names them.
const (
	generatedKeyFile    = "sa.key"
	generatedPubFile    = "sa.pub"
	generatedKeyBits    = 2048
	generatedKeyDirName = "pki"
)

// loadOrGenerate returns <dataDir>/pki/sa.key, creating it (and sa.pub)
// when missing.
//
// The generated key is RSA 2048, as kubeadm's: RS256 is the one algorithm
// every relying party of service account tokens supports (cloud workload
// identity federation, Vault, older OIDC libraries), and RSA verification,
// the hot path here, is cheaper than ECDSA's; signing is slower but
// happens once per TokenRequest.
func loadOrGenerate(dataDir string) (file string, key crypto.Signer, generated bool, err error) {
	if dataDir == "" {
		return "", nil, false, ErrNoDataDir
	}
	dir := filepath.Join(dataDir, generatedKeyDirName)
	file = filepath.Join(dir, generatedKeyFile)
	pubFile := filepath.Join(dir, generatedPubFile)

	key, err = readSigningKey(file)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		if key, generated, err = generate(dir, file); err != nil {
			return "", nil, false, err
		}
	default:
		return "", nil, false, err
	}
	if err := ensurePublic(pubFile, key.Public()); err != nil {
		return "", nil, false, err
	}
	return file, key, generated, nil
}

// generate creates the key file without ever exposing a partial one: it
// is written to a temporary file and linked into place, and if another
// process won the race its key is used instead.
func generate(dir, file string) (crypto.Signer, bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("creating %s: %w", dir, err)
	}
	key, err := rsa.GenerateKey(rand.Reader, generatedKeyBits)
	if err != nil {
		return nil, false, fmt.Errorf("generating service account key: %w", err)
	}
	data, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, false, fmt.Errorf("encoding service account key: %w", err)
	}
	created, err := writeNew(file, data, 0o600)
	if err != nil {
		return nil, false, err
	}
	if !created {
		s, err := readSigningKey(file)
		return s, false, err
	}
	return key, true, nil
}

// ensurePublic writes pub to file when it is missing and otherwise checks
// that the file holds it, so that a relying party fed sa.pub never gets a
// key we do not sign with.
func ensurePublic(file string, pub crypto.PublicKey) error {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return fmt.Errorf("encoding service account public key: %w", err)
	}
	existing, err := keyutil.PublicKeysFromFile(file)
	switch {
	case err == nil:
		for _, k := range existing {
			if d, err := x509.MarshalPKIXPublicKey(k); err == nil && bytes.Equal(d, der) {
				return nil
			}
		}
		return fmt.Errorf("%s: %w", file, ErrKeyMismatch)
	case errors.Is(err, fs.ErrNotExist):
		_, err := writeNew(file, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
		return err
	default:
		return fmt.Errorf("reading %s: %w", file, err)
	}
}

// writeNew creates file with data unless it already exists; it reports
// whether it did. The data is synced before it becomes visible.
func writeNew(file string, data []byte, perm os.FileMode) (bool, error) {
	dir := filepath.Dir(file)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return false, fmt.Errorf("creating %s: %w", file, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return false, fmt.Errorf("creating %s: %w", file, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("writing %s: %w", file, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("writing %s: %w", file, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("writing %s: %w", file, err)
	}
	if err := os.Link(tmp.Name(), file); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("creating %s: %w", file, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return true, nil
}
