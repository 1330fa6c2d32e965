package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"

	jose "github.com/go-jose/go-jose/v4"
	"k8s.io/client-go/util/keyutil"
)

// PublicKey is one verification key with its key ID.
type PublicKey struct {
	KeyID string
	Key   crypto.PublicKey // *rsa.PublicKey or *ecdsa.PublicKey
}

// Keys is the signing key and the keys tokens are verified with.
type Keys struct {
	// Signing signs new tokens: *rsa.PrivateKey or *ecdsa.PrivateKey.
	Signing crypto.Signer
	// SigningKeyID is the "kid" header of the tokens Signing signs.
	SigningKeyID string
	// Verifying holds every accepted key, the signing key's public half
	// included, without duplicates, in the order they were given.
	Verifying []PublicKey
	// SigningKeyFile is the file Signing was read from or generated into.
	SigningKeyFile string
	// Generated reports that this call created SigningKeyFile.
	Generated bool
}

// NewKeys builds Keys from a signing key and extra verification keys
// (public keys, or private keys whose public half is used).
func NewKeys(signing crypto.Signer, verifying ...crypto.PublicKey) (*Keys, error) {
	if _, err := algorithmFor(signing); err != nil {
		return nil, err
	}
	kid, err := KeyID(signing.Public())
	if err != nil {
		return nil, err
	}
	k := &Keys{Signing: signing, SigningKeyID: kid}
	seen := map[string]bool{}
	for _, v := range append(verifying, signing.Public()) {
		if s, ok := v.(crypto.Signer); ok {
			v = s.Public()
		}
		id, err := KeyID(v)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		k.Verifying = append(k.Verifying, PublicKey{KeyID: id, Key: v})
	}
	return k, nil
}

// KeyID derives a key ID from a public key as kube-apiserver does: the
// unpadded base64url SHA-256 of its PKIX DER encoding. Being a hash, it
// cannot be turned back into the key by mistake.
func KeyID(pub crypto.PublicKey) (string, error) {
	switch pub.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey:
	default:
		return "", fmt.Errorf("key ID of %T: %w", pub, ErrUnsupportedKey)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("failed to serialize public key to DER format: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// LoadOrGenerateKeys reads the signing key from signingKeyFile
// (--service-account-signing-key-file) or, when it is empty, from
// <dataDir>/pki/sa.key, generating that on first start. Every file in
// verifyKeyFiles (--service-account-key-file) may hold several PEM
// blocks: public keys, certificates, or private keys whose public half is
// used; blocks that are not keys are skipped, as kube-apiserver does, but
// a file without any key is an error. The signing key always verifies
// too, so a forgotten --service-account-key-file cannot make our own
// tokens fail.
func LoadOrGenerateKeys(dataDir, signingKeyFile string, verifyKeyFiles []string) (*Keys, error) {
	var (
		signer    crypto.Signer
		generated bool
		err       error
	)
	if signingKeyFile != "" {
		signer, err = readSigningKey(signingKeyFile)
	} else {
		signingKeyFile, signer, generated, err = loadOrGenerate(dataDir)
	}
	if err != nil {
		return nil, err
	}
	var verifying []crypto.PublicKey
	for _, f := range verifyKeyFiles {
		pubs, err := keyutil.PublicKeysFromFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to parse key file %q: %w", f, err)
		}
		for _, p := range pubs {
			verifying = append(verifying, p)
		}
	}
	k, err := NewKeys(signer, verifying...)
	if err != nil {
		return nil, fmt.Errorf("service account signing key %q: %w", signingKeyFile, err)
	}
	k.SigningKeyFile, k.Generated = signingKeyFile, generated
	return k, nil
}

func readSigningKey(file string) (crypto.Signer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading service account signing key: %w", err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("failed to parse service-account-signing-key-file %q: %w", file, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("service account signing key %q is a %T: %w", file, key, ErrUnsupportedKey)
	}
	if _, err := algorithmFor(signer); err != nil {
		return nil, fmt.Errorf("service account signing key %q: %w", file, err)
	}
	return signer, nil
}

// algorithmFor is the JWS algorithm kube-apiserver signs with for a key:
// RS256 for every RSA key, ES256/384/512 by curve.
func algorithmFor(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	alg, err := publicAlgorithm(key.Public())
	if err != nil {
		return "", fmt.Errorf("signing key %T: %w", key, ErrUnsupportedKey)
	}
	return alg, nil
}
