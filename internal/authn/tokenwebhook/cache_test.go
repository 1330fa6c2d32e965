package tokenwebhook

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/portcullis/portcullis/internal/authn"
)

// TestCacheTTL: what is kept, and for exactly how long.
func TestCacheTTL(t *testing.T) {
	const ttl = 2 * time.Minute
	tests := []struct {
		name    string
		ttl     time.Duration
		ctxAuds []string
		answer  answer
		// wantKept: the second and third authentications, just before
		// the TTL, are answered from the cache.
		wantKept bool
	}{
		{name: "authenticated", ttl: ttl, answer: ok(allowedV1), wantKept: true},
		{name: "not authenticated", ttl: ttl, answer: ok(deniedV1), wantKept: true},
		{name: "no shared audience", ttl: ttl, ctxAuds: []string{"vault"}, answer: ok(allowedV1), wantKept: true},
		{name: "the webhook's error", ttl: ttl, answer: ok(`{"status":{"error":"expired"}}`)},
		{name: "an HTTP error", ttl: ttl, answer: answer{code: http.StatusForbidden}},
		{name: "an undecodable answer", ttl: ttl, answer: ok(`[]`)},
		{name: "no TTL", answer: ok(allowedV1)},
		{name: "negative TTL", ttl: -time.Second, answer: ok(allowedV1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, w, clk := newTest(t, Config{CacheTTL: tt.ttl}, tt.answer)
			ctx := authn.WithAudiences(context.Background(), tt.ctxAuds)
			first := authenticate(t, a, ctx)
			clk.step(tt.ttl - time.Nanosecond)
			second := authenticate(t, a, ctx)
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("second answer differs (-first +second):\n%s", diff)
			}
			wantCalls := 2
			if tt.wantKept {
				wantCalls = 1
			}
			if n := len(w.received()); n != wantCalls {
				t.Errorf("webhook called %d times before the TTL ran out, want %d", n, wantCalls)
			}
			clk.step(time.Nanosecond)
			authenticate(t, a, ctx)
			if n := len(w.received()); n != wantCalls+1 {
				t.Errorf("webhook called %d times once the TTL ran out, want %d", n, wantCalls+1)
			}
		})
	}
}

// TestCacheKey: the token and the audiences asked for make the key.
func TestCacheKey(t *testing.T) {
	a, w, _ := newTest(t, Config{CacheTTL: time.Minute, Audiences: []string{"api"}},
		ok(`{"status":{"authenticated":true,"user":{"username":"alice"},"audiences":["api","a","b"]}}`))
	bg := context.Background()
	steps := []struct {
		token string
		auds  []string
	}{
		{token: "one"},
		{token: "one"},
		{token: "two"},
		{token: "one", auds: []string{"a"}},
		{token: "one", auds: []string{"a"}},
		{token: "one", auds: []string{"a", "b"}},
		{token: "one", auds: []string{"ab"}},
		{token: "one", auds: []string{"b", "a"}},
	}
	type outcome struct {
		Audiences []string
		OK        bool
	}
	var got []outcome
	for _, s := range steps {
		resp, ok, err := a.Authenticate(authn.WithAudiences(bg, s.auds), s.token)
		if err != nil {
			t.Fatalf("Authenticate(%q, %q): %v", s.token, s.auds, err)
		}
		got = append(got, outcome{Audiences: resp.Audiences, OK: ok})
	}
	want := []outcome{
		{Audiences: []string{"api"}, OK: true},
		{Audiences: []string{"api"}, OK: true},
		{Audiences: []string{"api"}, OK: true},
		{Audiences: []string{"a"}, OK: true},
		{Audiences: []string{"a"}, OK: true},
		{Audiences: []string{"a", "b"}, OK: true},
		{}, // "ab" is not among the answer's audiences
		{Audiences: []string{"b", "a"}, OK: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if n := len(w.received()); n != 6 {
		t.Errorf("webhook called %d times, want 6 (one per distinct token and audiences)", n)
	}
}

// TestCallerGivesUp: a caller whose context ends gets its error at once;
// the call goes on and its answer serves the next caller.
func TestCallerGivesUp(t *testing.T) {
	w := &fakeWebhook{answers: []answer{ok(allowedV1)}, arrived: make(chan struct{}, 1), hold: make(chan struct{})}
	path, _ := serve(t, w)
	a, err := New(Config{KubeconfigFile: path, Version: "v1", CacheTTL: time.Minute, Clock: newFakeClock(), Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := a.AuthenticateToken(ctx, "t0k3n")
		errc <- err
	}()
	<-w.arrived
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("AuthenticateToken after cancel = %v, want context.Canceled", err)
	}
	close(w.hold)
	u, ok, err := a.AuthenticateToken(context.Background(), "t0k3n")
	if err != nil || !ok || u.GetName() != "alice" {
		t.Errorf("AuthenticateToken = %v, %v, %v; want alice", u, ok, err)
	}
	if n := len(w.received()); n != 1 {
		t.Errorf("webhook called %d times, want 1", n)
	}
}

// TestSharedCall: concurrent callers of one key share one call, even with
// nothing cached.
func TestSharedCall(t *testing.T) {
	w := &fakeWebhook{answers: []answer{ok(allowedV1)}, arrived: make(chan struct{}, 1), hold: make(chan struct{})}
	path, _ := serve(t, w)
	reg := prometheus.NewPedanticRegistry()
	a, err := New(Config{KubeconfigFile: path, Version: "v1", Clock: newFakeClock(), Registerer: reg, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	const callers = 3
	done := make(chan string, callers)
	for range callers {
		go func() {
			u, _, _ := a.AuthenticateToken(context.Background(), "t0k3n")
			if u == nil {
				done <- ""
				return
			}
			done <- u.GetName()
		}()
	}
	<-w.arrived
	// Every caller waits on the one call before it is answered.
	for testutil.ToFloat64(a.metrics.active.WithLabelValues(statusBlocked)) != callers {
		runtime.Gosched()
	}
	close(w.hold)
	for range callers {
		if name := <-done; name != "alice" {
			t.Errorf("a caller got %q, want alice", name)
		}
	}
	if n := len(w.received()); n != 1 {
		t.Errorf("webhook called %d times, want 1", n)
	}
}

type panicking struct{}

func (panicking) review(context.Context, authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, error) {
	panic("bad day")
}

func TestPanic(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	a, _, _ := newTest(t, Config{CacheTTL: time.Minute, Registerer: reg}, ok(allowedV1))
	a.reviewer = panicking{}
	for range 2 {
		u, ok, err := a.AuthenticateToken(context.Background(), "t0k3n")
		if u != nil || ok || !errors.Is(err, ErrCrashed) || err.Error() != "Internal error occurred: authentication failed unexpectedly" {
			t.Fatalf("AuthenticateToken = %v, %v, %v; want kube-apiserver's internal error", u, ok, err)
		}
	}
	// Not cached: both calls fetched, and failed.
	if got := testutil.ToFloat64(a.metrics.fetches.WithLabelValues(statusFetchErr)); got != 2 {
		t.Errorf("failed fetches %v, want 2", got)
	}
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	a, _, clk := newTest(t, Config{CacheTTL: time.Minute, Registerer: reg},
		ok(allowedV1), ok(deniedV1), ok(`{"status":{"error":"expired"}}`))
	bg := context.Background()
	a.AuthenticateToken(bg, "a") // miss, fetch ok (authenticated)
	a.AuthenticateToken(bg, "a") // hit
	a.AuthenticateToken(bg, "b") // miss, fetch ok (not authenticated)
	a.AuthenticateToken(bg, "b") // hit
	a.AuthenticateToken(bg, "c") // miss, fetch error
	a.AuthenticateToken(bg, "c") // miss, fetch error
	clk.step(time.Minute)
	a.AuthenticateToken(bg, "a") // miss, fetch error (the script's last answer)
	want := `
# HELP authentication_token_cache_fetch_total [ALPHA] 
# TYPE authentication_token_cache_fetch_total counter
authentication_token_cache_fetch_total{status="error"} 3
authentication_token_cache_fetch_total{status="ok"} 2
# HELP authentication_token_cache_request_total [ALPHA] 
# TYPE authentication_token_cache_request_total counter
authentication_token_cache_request_total{status="hit"} 2
authentication_token_cache_request_total{status="miss"} 5
# HELP authentication_token_cache_active_fetch_count [ALPHA] 
# TYPE authentication_token_cache_active_fetch_count gauge
authentication_token_cache_active_fetch_count{status="blocked"} 0
authentication_token_cache_active_fetch_count{status="in_flight"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"authentication_token_cache_fetch_total", "authentication_token_cache_request_total",
		"authentication_token_cache_active_fetch_count"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(a.metrics.latency); n != 2 {
		t.Errorf("latency series %d, want 2 (hit and miss)", n)
	}
	// A second authenticator on the same registry shares the metrics.
	again, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if again.requests != a.metrics.requests {
		t.Error("a second registration did not share the first's metrics")
	}
}

// TestCacheBound: a full cache drops expired entries first, then others.
func TestCacheBound(t *testing.T) {
	clk := newFakeClock()
	c := newAnswerCache(time.Minute, clk)
	c.put(c.key("old", nil), record{ok: true})
	clk.step(time.Minute)
	for i := range maxEntries - 1 {
		c.put(c.key(strconv.Itoa(i), nil), record{ok: true})
	}
	if len(c.entries) != maxEntries {
		t.Fatalf("%d entries, want %d", len(c.entries), maxEntries)
	}
	c.put(c.key("new", nil), record{ok: true})
	if _, ok := c.entries[c.key("old", nil)]; ok {
		t.Error("the expired entry survived")
	}
	if len(c.entries) != maxEntries {
		t.Errorf("%d entries, want %d", len(c.entries), maxEntries)
	}
	c.put(c.key("newer", nil), record{ok: true})
	if len(c.entries) != maxEntries {
		t.Errorf("%d entries once full of live ones, want %d", len(c.entries), maxEntries)
	}
	if _, ok := c.lookup(c.key("newer", nil)); !ok {
		t.Error("the newest entry is missing")
	}
}
