package cache

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

// counting is an authenticator that counts calls and answers per token.
type counting struct {
	calls  atomic.Int64
	answer func(token string) (user.Info, bool, error)
}

func (c *counting) AuthenticateToken(_ context.Context, token string) (user.Info, bool, error) {
	c.calls.Add(1)
	return c.answer(token)
}

func okFor(token string) (user.Info, bool, error) {
	return &user.DefaultInfo{Name: "u-" + token}, true, nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// jwtWithExp returns a JWT-shaped token (unsigned: the cache never
// verifies) with the given exp.
func jwtWithExp(exp int64, salt string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(fmt.Sprintf(`{"exp":%d,"n":%q}`, exp, salt))) + ".sig"
}

func TestTTLs(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name      string
		opts      Options
		answer    func(string) (user.Info, bool, error)
		token     string
		advance   time.Duration
		wantCalls int64 // after: call, advance, call
	}{
		{name: "success kept 10s by default", answer: okFor, token: "t", advance: 9 * time.Second, wantCalls: 1},
		{name: "success gone after 10s", answer: okFor, token: "t", advance: 10 * time.Second, wantCalls: 2},
		{name: "failure not kept by default", answer: func(string) (user.Info, bool, error) { return nil, false, errors.New("bad") },
			token: "t", wantCalls: 2},
		{name: "unrecognised not kept by default", answer: func(string) (user.Info, bool, error) { return nil, false, nil },
			token: "t", wantCalls: 2},
		{name: "failure kept for FailureTTL", opts: Options{FailureTTL: 2 * time.Second},
			answer: func(string) (user.Info, bool, error) { return nil, false, errors.New("bad") },
			token:  "t", advance: time.Second, wantCalls: 1},
		{name: "failure gone after FailureTTL", opts: Options{FailureTTL: 2 * time.Second},
			answer: func(string) (user.Info, bool, error) { return nil, false, errors.New("bad") },
			token:  "t", advance: 2 * time.Second, wantCalls: 2},
		{name: "cancellation never kept", opts: Options{FailureTTL: time.Hour},
			answer: func(string) (user.Info, bool, error) { return nil, false, context.Canceled },
			token:  "t", wantCalls: 2},
		{name: "never past the JWT's exp", answer: okFor, token: jwtWithExp(start.Unix()+3, "a"), advance: 3 * time.Second, wantCalls: 2},
		{name: "JWT within exp", answer: okFor, token: jwtWithExp(start.Unix()+3, "b"), advance: 2 * time.Second, wantCalls: 1},
		{name: "expired JWT never kept", answer: okFor, token: jwtWithExp(start.Unix()-1, "c"), wantCalls: 2},
		{name: "negative SuccessTTL disables", opts: Options{SuccessTTL: -1}, answer: okFor, token: "t", wantCalls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: start}
			inner := &counting{answer: tt.answer}
			tt.opts.Now = clk.now
			c := New(inner, tt.opts)
			u1, ok1, err1 := c.AuthenticateToken(context.Background(), tt.token)
			clk.add(tt.advance)
			u2, ok2, err2 := c.AuthenticateToken(context.Background(), tt.token)
			if got := inner.calls.Load(); got != tt.wantCalls {
				t.Fatalf("calls = %d, want %d", got, tt.wantCalls)
			}
			if ok1 != ok2 || (err1 == nil) != (err2 == nil) || (u1 == nil) != (u2 == nil) {
				t.Fatalf("results differ: %v %v %v / %v %v %v", u1, ok1, err1, u2, ok2, err2)
			}
		})
	}
}

func TestDistinctTokensDistinctUsers(t *testing.T) {
	c := New(&counting{answer: okFor}, Options{})
	for i := range 100 {
		tok := fmt.Sprint("token-", i)
		u, ok, err := c.AuthenticateToken(context.Background(), tok)
		if !ok || err != nil || u.GetName() != "u-"+tok {
			t.Fatalf("%s: %v %v %v", tok, u, ok, err)
		}
	}
}

// TestConcurrentMissesShareOneCall: callers that miss while a lookup of
// the same token is in flight wait for it instead of asking again. Caching
// is off, so a caller that came after the lookup would make a call of its
// own; synctest.Wait releases the lookup only once every caller waits.
func TestConcurrentMissesShareOneCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		inner := &counting{answer: func(tok string) (user.Info, bool, error) { <-release; return okFor(tok) }}
		c := New(inner, Options{SuccessTTL: -1})
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if _, ok, err := c.AuthenticateToken(context.Background(), "same"); !ok || err != nil {
					t.Errorf("ok=%v err=%v", ok, err)
				}
			})
		}
		synctest.Wait()
		close(release)
		wg.Wait()
		if n := inner.calls.Load(); n != 1 {
			t.Fatalf("%d calls", n)
		}
	})
}

func TestWaiterGivesUp(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	inner := &counting{answer: func(tok string) (user.Info, bool, error) { close(started); <-release; return okFor(tok) }}
	c := New(inner, Options{})
	leader := make(chan error)
	go func() { _, _, err := c.AuthenticateToken(context.Background(), "slow"); leader <- err }()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, ok, err := c.AuthenticateToken(ctx, "slow"); ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiter: ok=%v err=%v", ok, err)
	}
	close(release)
	if err := <-leader; err != nil {
		t.Fatal(err)
	}
	// The leader's result was cached for everyone.
	if _, ok, _ := c.AuthenticateToken(context.Background(), "slow"); !ok || inner.calls.Load() != 1 {
		t.Fatal("result not cached")
	}
}

func TestPanicBecomesError(t *testing.T) {
	inner := &counting{answer: func(string) (user.Info, bool, error) { panic("boom") }}
	c := New(inner, Options{FailureTTL: time.Hour})
	for range 2 {
		if _, ok, err := c.AuthenticateToken(context.Background(), "t"); ok || !errors.Is(err, ErrAuthenticatorPanic) {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
	}
	if inner.calls.Load() != 2 {
		t.Fatal("a panic was cached")
	}
}

func TestBounded(t *testing.T) {
	c := New(&counting{answer: okFor}, Options{MaxEntries: 64})
	for i := range 5000 {
		c.AuthenticateToken(context.Background(), fmt.Sprint(i))
	}
	total := 0
	for i := range c.shards {
		total += len(c.shards[i].entries)
	}
	if total > 64 {
		t.Fatalf("%d entries, bound 64", total)
	}
}

func TestKeysAreSalted(t *testing.T) {
	a, b := New(&counting{answer: okFor}, Options{}), New(&counting{answer: okFor}, Options{})
	if a.key(context.Background(), "t") == b.key(context.Background(), "t") {
		t.Fatal("two caches derive the same key")
	}
	if a.key(context.Background(), "t") == a.key(context.Background(), "u") {
		t.Fatal("distinct tokens share a key")
	}
}

var _ authn.Token = (*counting)(nil)

func BenchmarkCachedHit(b *testing.B) {
	c := New(&counting{answer: okFor}, Options{SuccessTTL: time.Hour})
	tok := jwtWithExp(time.Now().Add(time.Hour).Unix(), "bench") + "x"
	c.AuthenticateToken(context.Background(), tok)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, _ := c.AuthenticateToken(context.Background(), tok); !ok {
				b.Fatal("miss")
			}
		}
	})
}

// FuzzUnverifiedExpiry: the exp peek at untrusted tokens never panics and
// never reports an expiry for a token that is not JWT-shaped.
func FuzzUnverifiedExpiry(f *testing.F) {
	f.Add(jwtWithExp(1700000000, "x"))
	f.Add("a.eyJleHAiOjFlMzA5fQ.c")
	f.Add("a.eyJleHAiOiJ4In0.c")
	f.Add("no-dots")
	f.Fuzz(func(t *testing.T, token string) {
		if _, ok := unverifiedExpiry(token); ok && strings.Count(token, ".") != 2 {
			t.Fatalf("expiry for %q", token)
		}
	})
}
