package authn

import (
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"sync"
	"time"
)

// chainKey identifies a presented chain verified against one root pool.
type chainKey [sha256.Size]byte

func newChainKey(chain []*x509.Certificate, roots *x509.CertPool) chainKey {
	h := sha256.New()
	fmt.Fprintf(h, "%p", roots)
	for _, c := range chain {
		h.Write(c.Raw)
	}
	var k chainKey
	h.Sum(k[:0])
	return k
}

// verifiedCache remembers verified chains until their leaf expires. It is
// bounded: when full it is cleared, which costs only re-verification.
type verifiedCache struct {
	mu      sync.RWMutex
	max     int
	entries map[chainKey]time.Time
}

func newVerifiedCache(max int) *verifiedCache {
	return &verifiedCache{max: max, entries: map[chainKey]time.Time{}}
}

func (c *verifiedCache) ok(k chainKey, now time.Time) bool {
	c.mu.RLock()
	exp, found := c.entries[k]
	c.mu.RUnlock()
	return found && now.Before(exp)
}

func (c *verifiedCache) add(k chainKey, notAfter time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[k] = notAfter
}
