package serviceaccount

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Discovery paths kube-apiserver serves for relying parties of its
// service account tokens.
const (
	DiscoveryPath = "/.well-known/openid-configuration"
	JWKSPath      = "/openid/v1/jwks"
)

// Discovery serves the service account issuer's OpenID discovery
// document and its key set. Both are rendered once: the keys do not change
// while the server runs.
type Discovery struct {
	config []byte
	jwks   []byte
}

// NewDiscovery renders the documents of issuer (the first
// --service-account-issuer) and keys.
func NewDiscovery(issuer string, keys *Keys) (*Discovery, error) {
	jwks, err := keys.JWKS()
	if err != nil {
		return nil, err
	}
	var algs []string
	for _, p := range keys.Verifying {
		alg, err := publicAlgorithm(p.Key)
		if err != nil {
			return nil, err
		}
		algs = append(algs, string(alg))
	}
	slices.Sort(algs)
	doc := map[string]any{
		"issuer":                                issuer,
		"jwks_uri":                              strings.TrimSuffix(issuer, "/") + JWKSPath,
		"response_types_supported":              []string{"id_token"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": slices.Compact(algs),
	}
	config, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding the OpenID configuration: %w", err)
	}
	return &Discovery{config: config, jwks: jwks}, nil
}

// Serve answers the two discovery paths and reports whether r was one.
func (d *Discovery) Serve(w http.ResponseWriter, r *http.Request) bool {
	switch r.URL.Path {
	case DiscoveryPath:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(d.config)
		return true
	case JWKSPath:
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(d.jwks)
		return true
	}
	return false
}
