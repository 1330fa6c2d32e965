package cache

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unsafe"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

// Options tune the cache. The zero value gives kube-apiserver's defaults.
type Options struct {
	// SuccessTTL is how long a successful result is kept. Default 10s;
	// negative disables caching of successes.
	SuccessTTL time.Duration
	// FailureTTL is how long a failed or unrecognised result is kept.
	// Default 0: failures are not cached.
	FailureTTL time.Duration
	// MaxEntries bounds the number of cached results. Default 16384.
	MaxEntries int
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// lookupTimeout bounds a shared call to the authenticator behind the
// cache: callers waiting for it may give up sooner, the call itself runs
// on, detached from the first caller's cancellation, so that it can serve
// the others.
const lookupTimeout = 30 * time.Second

const shardCount = 32

// Cache is an authn.Token in front of another.
type Cache struct {
	next       authn.Token
	successTTL time.Duration
	failureTTL time.Duration
	now        func() time.Time
	salt       [32]byte
	shards     [shardCount]shard
}

var _ authn.Token = (*Cache)(nil)

type key [sha256.Size]byte

type entry struct {
	info    user.Info
	ok      bool
	err     error
	expires time.Time
}

// call is one in-flight authentication shared by concurrent callers.
type call struct {
	done chan struct{}
	res  entry
}

type shard struct {
	mu       sync.Mutex
	entries  map[key]entry
	inflight map[key]*call
	max      int
}

// New puts a cache in front of next.
func New(next authn.Token, opts Options) *Cache {
	if opts.SuccessTTL == 0 {
		opts.SuccessTTL = 10 * time.Second
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = 16384
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Cache{next: next, successTTL: opts.SuccessTTL, failureTTL: opts.FailureTTL, now: opts.Now}
	// crypto/rand.Read never fails (it aborts the program instead).
	_, _ = rand.Read(c.salt[:])
	per := max(1, opts.MaxEntries/shardCount)
	for i := range c.shards {
		c.shards[i] = shard{entries: map[key]entry{}, inflight: map[key]*call{}, max: per}
	}
	return c
}

// AuthenticateToken implements authn.Token.
func (c *Cache) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	k := c.key(ctx, token)
	s := &c.shards[binary.LittleEndian.Uint64(k[:8])%shardCount]
	now := c.now()

	s.mu.Lock()
	if e, ok := s.entries[k]; ok {
		if now.Before(e.expires) {
			s.mu.Unlock()
			return e.info, e.ok, e.err
		}
		delete(s.entries, k)
	}
	if cl, ok := s.inflight[k]; ok {
		s.mu.Unlock()
		select {
		case <-cl.done:
			return cl.res.info, cl.res.ok, cl.res.err
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	cl := &call{done: make(chan struct{})}
	s.inflight[k] = cl
	s.mu.Unlock()

	cl.res = c.lookup(ctx, token)

	s.mu.Lock()
	delete(s.inflight, k)
	if ttl := c.ttl(token, cl.res, c.now()); ttl > 0 {
		cl.res.expires = c.now().Add(ttl)
		s.put(k, cl.res, c.now())
	}
	s.mu.Unlock()
	close(cl.done)
	return cl.res.info, cl.res.ok, cl.res.err
}

// lookup asks the authenticator behind the cache. A panic there must not
// leave the callers waiting on this lookup stuck, so it becomes an error.
func (c *Cache) lookup(ctx context.Context, token string) (res entry) {
	defer func() {
		if r := recover(); r != nil {
			res = entry{err: fmt.Errorf("%w: %v", ErrAuthenticatorPanic, r)}
		}
	}()
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
	defer cancel()
	info, ok, err := c.next.AuthenticateToken(lctx, token)
	if !ok || err != nil {
		return entry{err: err}
	}
	return entry{info: info, ok: true}
}

// ttl is how long a result may be kept; 0 means not at all.
func (c *Cache) ttl(token string, e entry, now time.Time) time.Duration {
	if !e.ok {
		if errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded) ||
			errors.Is(e.err, ErrAuthenticatorPanic) {
			return 0 // about this attempt, not about the token
		}
		return max(c.failureTTL, 0)
	}
	ttl := c.successTTL
	if exp, ok := unverifiedExpiry(token); ok {
		// The authenticator behind us verified the token, exp included,
		// so this is the real expiry; it can only shorten the lifetime.
		ttl = min(ttl, exp.Sub(now))
	}
	return max(ttl, 0)
}

// put stores e, evicting to stay within the bound: expired entries
// first, then arbitrary ones (map order is random, which is fair enough
// for entries that all live seconds).
func (s *shard) put(k key, e entry, now time.Time) {
	if len(s.entries) >= s.max {
		for old, v := range s.entries {
			if !now.Before(v.expires) {
				delete(s.entries, old)
			}
		}
		for old := range s.entries {
			if len(s.entries) < s.max {
				break
			}
			delete(s.entries, old)
		}
	}
	s.entries[k] = e
}

// key identifies a token and the audiences it is asked for (a
// TokenReview's), as kube-apiserver's token cache does: a token good for
// one audience says nothing of another.
func (c *Cache) key(ctx context.Context, token string) key {
	h := sha256.New()
	h.Write(c.salt[:])
	// Hashing reads the bytes in place: a copy of every token would cost
	// an allocation per request (JWTs are around a kilobyte).
	h.Write(unsafe.Slice(unsafe.StringData(token), len(token)))
	for _, a := range authn.AudiencesFrom(ctx) {
		h.Write([]byte{0})
		h.Write(unsafe.Slice(unsafe.StringData(a), len(a)))
	}
	var k key
	h.Sum(k[:0])
	return k
}

// unverifiedExpiry reads exp from a compact JWT without verifying it.
func unverifiedExpiry(token string) (time.Time, bool) {
	if strings.Count(token, ".") != 2 {
		return time.Time{}, false
	}
	_, rest, _ := strings.Cut(token, ".")
	payload, _, _ := strings.Cut(rest, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp *float64 `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil || claims.Exp == nil {
		return time.Time{}, false
	}
	f := *claims.Exp
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e15 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}
