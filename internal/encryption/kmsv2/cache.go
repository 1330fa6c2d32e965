package kmsv2

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const (
	// cacheTTL is how long a decrypted DEK source stays cached after its
	// last use for writing (or its insertion). Entries number about the key
	// ids in use times the restarts of the servers that wrote, so a day
	// costs little memory and saves the plugin a Decrypt per value.
	cacheTTL = 24 * time.Hour
	// gcInterval bounds how often insertion sweeps expired entries.
	gcInterval = time.Minute
)

// cacheKey identifies a DEK source: a SHA-256 over everything the plugin
// receives to decrypt it, so that equal keys mean equal plaintexts.
type cacheKey [sha256.Size]byte

func keyOf(kind sourceType, dekSource []byte, keyID string, annotations map[string][]byte) cacheKey {
	// Lengths are 32-bit so that the encoding is injective whatever the
	// sizes; the common case fits the stack buffer.
	var stack [2 * 1024]byte
	b := binary.BigEndian.AppendUint32(stack[:0], uint32(kind))
	b = appendLV(b, dekSource)
	b = appendLV(b, []byte(keyID))
	if len(annotations) > 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(len(annotations)))
		for _, k := range sortedKeys(annotations) {
			b = appendLV(b, []byte(k))
			b = appendLV(b, annotations[k])
		}
	}
	return sha256.Sum256(b)
}

func appendLV(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// cacheEntry is one decrypted DEK source.
type cacheEntry struct {
	dek *dek
	// keyIDHash labels the metrics of the values it reads.
	keyIDHash string
	// expires is in Unix nanoseconds; writes move it forward without the
	// cache's write lock.
	expires atomic.Int64
}

// dekCache maps DEK sources to their decrypted form. Expired entries are
// still returned (a source always decrypts to the same key); they are only
// swept on insertion.
type dekCache struct {
	now  func() time.Time
	size prometheus.Gauge

	mu      sync.RWMutex
	entries map[cacheKey]*cacheEntry
	lastGC  time.Time

	// inflight collapses concurrent misses of one source into one Decrypt,
	// as on a server's first list of all secrets.
	flightMu sync.Mutex
	inflight map[cacheKey]*flight
}

type flight struct {
	done  chan struct{}
	entry *cacheEntry
	err   error
}

func newDEKCache(now func() time.Time, size prometheus.Gauge) *dekCache {
	return &dekCache{
		now:      now,
		size:     size,
		entries:  map[cacheKey]*cacheEntry{},
		inflight: map[cacheKey]*flight{},
	}
}

func (c *dekCache) get(k cacheKey) *cacheEntry {
	c.mu.RLock()
	e := c.entries[k]
	c.mu.RUnlock()
	return e
}

// put inserts e, or refreshes it when it is there already.
func (c *dekCache) put(k cacheKey, e *cacheEntry) {
	now := c.now()
	e.expires.Store(now.Add(cacheTTL).UnixNano())
	c.mu.RLock()
	present := c.entries[k] == e
	c.mu.RUnlock()
	if present {
		return
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.lastGC) >= gcInterval {
		c.lastGC = now
		for key, old := range c.entries {
			if old.expires.Load() < now.UnixNano() {
				delete(c.entries, key)
			}
		}
	}
	c.entries[k] = e
	c.size.Set(float64(len(c.entries)))
}

// getOrLoad returns the entry of k, calling load once for all concurrent
// callers that miss it. miss reports that this caller did not find it.
// load runs detached from any one caller's cancellation; a caller whose ctx
// ends stops waiting.
func (c *dekCache) getOrLoad(ctx context.Context, k cacheKey, load func() (*cacheEntry, error)) (e *cacheEntry, miss bool, err error) {
	if e := c.get(k); e != nil {
		return e, false, nil
	}
	c.flightMu.Lock()
	// A flight puts its entry before it leaves inflight: look again.
	if e := c.get(k); e != nil {
		c.flightMu.Unlock()
		return e, false, nil
	}
	f, ok := c.inflight[k]
	if !ok {
		f = &flight{done: make(chan struct{})}
		c.inflight[k] = f
		go func() {
			f.entry, f.err = load()
			if f.err == nil {
				c.put(k, f.entry)
			}
			c.flightMu.Lock()
			delete(c.inflight, k)
			c.flightMu.Unlock()
			close(f.done)
		}()
	}
	c.flightMu.Unlock()
	select {
	case <-f.done:
		return f.entry, true, f.err
	case <-ctx.Done():
		return nil, true, context.Cause(ctx)
	}
}

func (c *dekCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
