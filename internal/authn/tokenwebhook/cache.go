package tokenwebhook

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/authn"
)

// lookupTimeout bounds one shared call to the webhook, retries included:
// it runs detached from the caller that started it, so that callers
// giving up early do not cut it short for the others.
const lookupTimeout = 30 * time.Second

// maxEntries bounds the cache; kube-apiserver's is unbounded, but random
// tokens, each remembered as unauthenticated for the TTL, must not be a
// way to exhaust memory.
const maxEntries = 1 << 16

// record is one result of the webhook, as cached.
type record struct {
	resp Response
	ok   bool
	err  error
}

type cacheKey [sha256.Size]byte

type entry struct {
	rec     record
	expires time.Time
}

// fetch is one call to the webhook shared by every caller of its key.
type fetch struct {
	done chan struct{}
	rec  record
}

// answerCache keeps the webhook's answers for ttl, keyed by the token and
// the audiences asked for, as kube-apiserver's: authenticated and
// unauthenticated answers are kept, errors (the webhook failing, or
// status.error) never are.
type answerCache struct {
	ttl   time.Duration
	clock Clock

	hashes sync.Pool

	mu       sync.Mutex
	entries  map[cacheKey]entry
	inflight map[cacheKey]*fetch
}

func newAnswerCache(ttl time.Duration, clk Clock) *answerCache {
	var salt [32]byte
	// crypto/rand.Read never fails (it aborts the program instead).
	_, _ = rand.Read(salt[:])
	return &answerCache{
		ttl:   ttl,
		clock: clk,
		// A keyed hash: a key seen in a heap dump says nothing of the
		// token.
		hashes:   sync.Pool{New: func() any { return hmac.New(sha256.New, salt[:]) }},
		entries:  map[cacheKey]entry{},
		inflight: map[cacheKey]*fetch{},
	}
}

// key hashes the token and the audiences, each length-prefixed so that
// no two different lists hash alike.
func (c *answerCache) key(token string, auds []string) cacheKey {
	h := c.hashes.Get().(hash.Hash)
	defer c.hashes.Put(h)
	h.Reset()
	var n [4]byte
	write := func(s string) {
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(token)
	binary.BigEndian.PutUint32(n[:], uint32(len(auds)))
	h.Write(n[:])
	for _, a := range auds {
		write(a)
	}
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// lookup returns the live entry for k, under c.mu.
func (c *answerCache) lookup(k cacheKey) (record, bool) {
	e, ok := c.entries[k]
	if !ok {
		return record{}, false
	}
	if !c.clock.Now().Before(e.expires) {
		delete(c.entries, k)
		return record{}, false
	}
	return e.rec, true
}

// put keeps rec for the TTL if it is worth keeping, under c.mu.
func (c *answerCache) put(k cacheKey, rec record) {
	if c.ttl <= 0 || rec.err != nil {
		return
	}
	now := c.clock.Now()
	if len(c.entries) >= maxEntries {
		for old, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, old)
			}
		}
		// Still full: drop arbitrary entries (map order is random).
		for old := range c.entries {
			if len(c.entries) < maxEntries {
				break
			}
			delete(c.entries, old)
		}
	}
	c.entries[k] = entry{rec: rec, expires: now.Add(c.ttl)}
}

// cached answers from the cache, or joins (or starts) the call to the
// webhook for the token and the request's audiences. A caller whose
// context ends stops waiting; the call goes on for the others.
func (a *Authenticator) cached(ctx context.Context, token string) record {
	start := time.Now()
	auds := authn.AudiencesFrom(ctx)
	c := a.cache
	k := c.key(token, auds)

	c.mu.Lock()
	if rec, ok := c.lookup(k); ok {
		c.mu.Unlock()
		a.metrics.request(true, time.Since(start))
		return rec
	}
	f, joined := c.inflight[k]
	if !joined {
		f = &fetch{done: make(chan struct{})}
		c.inflight[k] = f
	}
	c.mu.Unlock()

	unblock := a.metrics.blocked()
	defer func() {
		unblock()
		a.metrics.request(false, time.Since(start))
	}()
	if !joined {
		// Owned by the fetch itself: it ends within lookupTimeout.
		go a.fetch(k, f, token, auds)
	}
	select {
	case <-f.done:
		return f.rec
	case <-ctx.Done():
		return record{err: ctx.Err()}
	}
}

// fetch asks the webhook on behalf of every caller of k and keeps the
// answer.
func (a *Authenticator) fetch(k cacheKey, f *fetch, token string, auds []string) {
	done := a.metrics.fetching()
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("webhook token authentication panicked", "panic", fmt.Sprint(r))
			f.rec = record{err: mark(ErrCrashed, apierrors.NewInternalError(errors.New("authentication failed unexpectedly")))}
		}
		done(f.rec.err == nil)
		c := a.cache
		c.mu.Lock()
		c.put(k, f.rec)
		delete(c.inflight, k)
		c.mu.Unlock()
		close(f.done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	ctx = authn.WithAudiences(ctx, auds)
	f.rec = a.authenticate(ctx, token)
}
