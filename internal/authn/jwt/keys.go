package jwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// allowedAlgs are the asymmetric signature algorithms kube-apiserver
// accepts from issuers configured by file. "none" and the HMAC family are
// absent: a token can never choose its own verification secret.
var allowedAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512,
}

// maxDocumentSize bounds discovery documents, key sets and distributed
// claim responses: an issuer must not be able to exhaust memory.
const maxDocumentSize = 1 << 20

// minRSABits rejects keys too short to be trusted.
const minRSABits = 2048

// keySet is an immutable snapshot of an issuer's verification keys.
type keySet struct {
	keys    []jose.JSONWebKey
	fetched time.Time
}

// candidates returns the keys that may have signed a token with this kid
// and alg. Without a kid every key of a compatible type is tried.
func (s *keySet) candidates(kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range s.keys {
		if kid != "" && k.KeyID != kid {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != string(alg) {
			continue
		}
		if !keyFitsAlg(k.Key, alg) {
			continue
		}
		out = append(out, k)
	}
	return out
}

func (s *keySet) hasKID(kid string) bool {
	for _, k := range s.keys {
		if k.KeyID == kid {
			return true
		}
	}
	return false
}

func keyFitsAlg(key any, alg jose.SignatureAlgorithm) bool {
	switch key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(string(alg), "RS") || strings.HasPrefix(string(alg), "PS")
	case *ecdsa.PublicKey:
		return strings.HasPrefix(string(alg), "ES")
	}
	return false
}

// discovery is the part of the OpenID provider metadata that matters.
type discovery struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// fetcher talks to one issuer: the discovery document once, then the key
// set whenever it is refreshed. Refreshes are coalesced and spaced.
type fetcher struct {
	client       *http.Client
	issuer       string
	discoveryURL string
	timeout      time.Duration
	minRefresh   time.Duration
	now          func() time.Time

	mu          sync.Mutex
	jwksURI     string
	lastAttempt time.Time
	inflight    chan struct{} // closed when the running fetch ends
	lastErr     error
}

func newFetcher(c *Compiled, client *http.Client, opts Options) *fetcher {
	d := c.discoveryURL
	if d == "" {
		d = strings.TrimSuffix(c.issuer, "/") + "/.well-known/openid-configuration"
	}
	return &fetcher{client: client, issuer: c.issuer, discoveryURL: d,
		timeout: opts.FetchTimeout, minRefresh: opts.MinRefreshInterval, now: opts.Now}
}

// discover fetches the discovery document and remembers the JWKS URI.
func (f *fetcher) discover(ctx context.Context) error {
	var d discovery
	if err := f.getJSON(ctx, f.discoveryURL, &d); err != nil {
		return fmt.Errorf("%w: %w", ErrDiscovery, err)
	}
	// The discovery document must speak for the configured issuer, even
	// when it is served from elsewhere (discoveryURL).
	if d.Issuer != f.issuer {
		return fmt.Errorf("%w: issuer did not match the issuer returned by provider, expected %q got %q", ErrDiscovery, f.issuer, d.Issuer)
	}
	if d.JWKSURI == "" {
		return fmt.Errorf("%w: provider did not return a jwks_uri", ErrDiscovery)
	}
	if !strings.HasPrefix(d.JWKSURI, "https://") {
		return fmt.Errorf("%w: jwks_uri %q is not https", ErrDiscovery, d.JWKSURI)
	}
	f.mu.Lock()
	f.jwksURI = d.JWKSURI
	f.mu.Unlock()
	return nil
}

// fetchKeys downloads and filters the key set.
func (f *fetcher) fetchKeys(ctx context.Context) (*keySet, error) {
	f.mu.Lock()
	uri := f.jwksURI
	f.mu.Unlock()
	if uri == "" {
		return nil, fmt.Errorf("%w: no jwks_uri discovered yet", ErrKeySet)
	}
	var raw jose.JSONWebKeySet
	if err := f.getJSON(ctx, uri, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeySet, err)
	}
	set := &keySet{fetched: f.now()}
	for _, k := range raw.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if !k.IsPublic() {
			// A private key published by mistake still verifies with its
			// public half; never keep the private one around.
			k = k.Public()
		}
		if !k.Valid() {
			continue
		}
		switch pk := k.Key.(type) {
		case *rsa.PublicKey:
			if pk.N.BitLen() < minRSABits {
				continue
			}
		case *ecdsa.PublicKey:
		default:
			continue // symmetric and other key types are never used here
		}
		set.keys = append(set.keys, k)
	}
	if len(set.keys) == 0 {
		return nil, fmt.Errorf("%w: %s holds no usable signing key", ErrKeySet, uri)
	}
	return set, nil
}

// refresh fetches the key set unless a fetch happened less than
// minRefresh ago; concurrent callers share one fetch. It returns nil, nil
// when it did not fetch. The fetch itself is detached from ctx so that
// one cancelled request does not fail the others waiting on it, but ctx
// still bounds how long this caller waits.
func (f *fetcher) refresh(ctx, lifecycle context.Context, store func(*keySet)) (*keySet, error) {
	f.mu.Lock()
	if ch := f.inflight; ch != nil {
		f.mu.Unlock()
		select {
		case <-ch:
			f.mu.Lock()
			err := f.lastErr
			f.mu.Unlock()
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if now := f.now(); now.Sub(f.lastAttempt) < f.minRefresh {
		f.mu.Unlock()
		return nil, nil
	}
	f.lastAttempt = f.now()
	ch := make(chan struct{})
	f.inflight = ch
	f.mu.Unlock()

	done := make(chan struct{})
	var set *keySet
	var err error
	go func() {
		defer close(done)
		fctx, cancel := context.WithTimeout(lifecycle, f.timeout)
		defer cancel()
		set, err = f.fetchKeys(fctx)
		if err == nil {
			store(set)
		}
		f.mu.Lock()
		f.lastErr = err
		f.inflight = nil
		f.mu.Unlock()
		close(ch)
	}()
	select {
	case <-done:
		return set, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *fetcher) getJSON(ctx context.Context, url string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentSize+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if len(body) > maxDocumentSize {
		return fmt.Errorf("GET %s: response larger than %d bytes", url, maxDocumentSize)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: decoding response: %w", url, err)
	}
	return nil
}
