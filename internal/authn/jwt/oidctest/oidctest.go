package oidctest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Paths served by the issuer.
const (
	DiscoveryPath = "/.well-known/openid-configuration"
	JWKSPath      = "/jwks"
)

// Key is a signing key with its key ID and algorithm.
type Key struct {
	KID     string
	Alg     jose.SignatureAlgorithm
	Private crypto.Signer
}

// NewRSAKey generates a 2048-bit RSA key for RS256.
func NewRSAKey(kid string) (*Key, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return &Key{KID: kid, Alg: jose.RS256, Private: k}, nil
}

// NewECKey generates a P-256 key for ES256.
func NewECKey(kid string) (*Key, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Key{KID: kid, Alg: jose.ES256, Private: k}, nil
}

// JWK returns the public key as a JSON Web Key.
func (k *Key) JWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.Private.Public(), KeyID: k.KID, Algorithm: string(k.Alg), Use: "sig"}
}

// Sign returns a compact JWS of claims signed with k.
func (k *Key) Sign(claims any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if k.KID != "" {
		opts = opts.WithHeader("kid", k.KID)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.Alg, Key: k.Private}, opts)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// fault is what a path does instead of (or before) answering.
type fault struct {
	delay  time.Duration
	status int
}

// Issuer is a running OpenID provider.
type Issuer struct {
	// URL is the issuer URL (https://127.0.0.1:port).
	URL string
	// CAPEM is the PEM certificate that verifies the server, for
	// certificateAuthority.
	CAPEM string

	srv *httptest.Server
	mux *http.ServeMux

	mu        sync.Mutex
	published []*Key
	issuer    string // the "issuer" of the discovery document
	faults    map[string]fault
	hits      map[string]*atomic.Int64
}

// New starts an issuer publishing keys; it is closed when the test ends.
func New(t testing.TB, keys ...*Key) *Issuer {
	t.Helper()
	i := &Issuer{mux: http.NewServeMux(), faults: map[string]fault{}, hits: map[string]*atomic.Int64{
		DiscoveryPath: {}, JWKSPath: {},
	}}
	i.published = keys
	i.mux.HandleFunc(DiscoveryPath, i.serveDiscovery)
	i.mux.HandleFunc(JWKSPath, i.serveJWKS)
	i.srv = httptest.NewUnstartedServer(i)
	i.srv.StartTLS()
	t.Cleanup(i.srv.Close)
	i.URL = i.srv.URL
	i.issuer = i.URL
	i.CAPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: i.srv.Certificate().Raw}))
	return i
}

// Client returns an HTTP client that trusts the issuer.
func (i *Issuer) Client() *http.Client { return i.srv.Client() }

// Handle serves an extra path (a distributed claims endpoint, say).
func (i *Issuer) Handle(path string, h http.Handler) { i.mux.Handle(path, h) }

// SetKeys replaces the published keys: a key rotation.
func (i *Issuer) SetKeys(keys ...*Key) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.published = keys
}

// SetDiscoveryIssuer makes the discovery document claim another issuer.
func (i *Issuer) SetDiscoveryIssuer(iss string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.issuer = iss
}

// Fail makes path answer status (0 restores it).
func (i *Issuer) Fail(path string, status int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	f := i.faults[path]
	f.status = status
	i.faults[path] = f
}

// Delay makes path wait d before answering (0 restores it). The wait ends
// early when the client goes away.
func (i *Issuer) Delay(path string, d time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	f := i.faults[path]
	f.delay = d
	i.faults[path] = f
}

// Hits returns how many requests path has had (discovery and JWKS only).
func (i *Issuer) Hits(path string) int64 {
	if c := i.hits[path]; c != nil {
		return c.Load()
	}
	return 0
}

// ServeHTTP applies faults, then serves.
func (i *Issuer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c := i.hits[r.URL.Path]; c != nil {
		c.Add(1)
	}
	i.mu.Lock()
	f := i.faults[r.URL.Path]
	i.mu.Unlock()
	if f.delay > 0 {
		t := time.NewTimer(f.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if f.status != 0 {
		http.Error(w, http.StatusText(f.status), f.status)
		return
	}
	i.mux.ServeHTTP(w, r)
}

func (i *Issuer) serveDiscovery(w http.ResponseWriter, _ *http.Request) {
	i.mu.Lock()
	iss := i.issuer
	i.mu.Unlock()
	writeJSON(w, map[string]any{
		"issuer":                                iss,
		"jwks_uri":                              i.URL + JWKSPath,
		"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		"response_types_supported":              []string{"id_token"},
		"subject_types_supported":               []string{"public"},
	})
}

func (i *Issuer) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	i.mu.Lock()
	set := jose.JSONWebKeySet{}
	for _, k := range i.published {
		set.Keys = append(set.Keys, k.JWK())
	}
	i.mu.Unlock()
	writeJSON(w, set)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprint(err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
