package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// JWKS returns the verification keys as a JSON Web Key Set, the document
// kube-apiserver serves at /openid/v1/jwks for relying parties.
func (k *Keys) JWKS() ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(k.Verifying))}
	for _, p := range k.Verifying {
		alg, err := publicAlgorithm(p.Key)
		if err != nil {
			return nil, err
		}
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: p.Key, KeyID: p.KeyID, Algorithm: string(alg), Use: "sig"})
	}
	b, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("encoding JWKS: %w", err)
	}
	return b, nil
}

func publicAlgorithm(pub any) (jose.SignatureAlgorithm, error) {
	switch p := pub.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch p.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	}
	return "", fmt.Errorf("public key %T: %w", pub, ErrUnsupportedKey)
}
