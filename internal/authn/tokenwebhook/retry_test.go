package tokenwebhook

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

func TestRetries(t *testing.T) {
	internal := answer{code: http.StatusInternalServerError, contentType: "text/plain", body: "boom"}
	alice := &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev"}}
	tests := []struct {
		name      string
		answers   []answer
		want      result
		wantCalls int
		wantWaits []time.Duration
	}{
		{
			name:      "500 twice, then an answer",
			answers:   []answer{internal, internal, ok(allowedV1)},
			want:      result{OK: true, User: alice},
			wantCalls: 3,
			wantWaits: []time.Duration{500 * time.Millisecond, 750 * time.Millisecond},
		},
		{
			name:      "429, then an answer",
			answers:   []answer{{code: http.StatusTooManyRequests}, ok(allowedV1)},
			want:      result{OK: true, User: alice},
			wantCalls: 2,
			wantWaits: []time.Duration{500 * time.Millisecond},
		},
		{
			name:      "502 and 504, then a denial",
			answers:   []answer{{code: http.StatusBadGateway}, {code: http.StatusGatewayTimeout}, ok(deniedV1)},
			want:      result{},
			wantCalls: 3,
			wantWaits: []time.Duration{500 * time.Millisecond, 750 * time.Millisecond},
		},
		{
			name:      "a failure Status with reason InternalError",
			answers:   []answer{{code: http.StatusInternalServerError, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"db down","reason":"InternalError","code":500}`}, ok(allowedV1)},
			want:      result{OK: true, User: alice},
			wantCalls: 2,
			wantWaits: []time.Duration{500 * time.Millisecond},
		},
		{
			name:      "500 every time: five attempts, the last error",
			answers:   []answer{internal, internal, internal, internal, {code: http.StatusInternalServerError, contentType: "text/plain", body: "last"}},
			want:      result{Err: `an error on the server ("last") has prevented the request from succeeding`},
			wantCalls: 5,
			wantWaits: []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond},
		},
		{
			name:    "a retry that ends in a client error",
			answers: []answer{internal, {code: http.StatusBadRequest, contentType: "text/plain", body: "bad"}},
			// client-go words a 400 without a Status itself.
			want:      result{Err: "the server rejected our request for an unknown reason"},
			wantCalls: 2,
			wantWaits: []time.Duration{500 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, w, clk := newTest(t, Config{}, tt.answers...)
			got := authenticate(t, a, context.Background())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Authenticate (-want +got):\n%s", diff)
			}
			if n := len(w.received()); n != tt.wantCalls {
				t.Errorf("webhook called %d times, want %d", n, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantWaits, clk.waited()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultBackoff checks kube-apiserver's schedule with its jitter:
// five attempts, each wait at most a fifth longer than 500ms·1.5ⁿ.
func TestDefaultBackoff(t *testing.T) {
	w := &fakeWebhook{answers: []answer{{code: http.StatusInternalServerError}}}
	path, _ := serve(t, w)
	clk := newFakeClock()
	a, err := New(Config{KubeconfigFile: path, Version: DefaultVersion, Clock: clk, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.AuthenticateToken(context.Background(), "t0k3n"); err == nil {
		t.Fatal("AuthenticateToken succeeded against a failing webhook")
	}
	if n := len(w.received()); n != 5 {
		t.Errorf("webhook called %d times, want 5", n)
	}
	waits := clk.waited()
	if len(waits) != 4 {
		t.Fatalf("waits %v, want 4", waits)
	}
	base := 500 * time.Millisecond
	for i, d := range waits {
		if d < base || d > base+base/5 {
			t.Errorf("wait %d is %v, want within [%v, %v]", i, d, base, base+base/5)
		}
		base = base * 3 / 2
	}
}

func TestUnreachable(t *testing.T) {
	w := &fakeWebhook{answers: []answer{ok(allowedV1)}}
	path, srv := serve(t, w)
	srv.Close()
	clk := newFakeClock()
	a, err := New(Config{KubeconfigFile: path, Version: "v1", Clock: clk, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	u, ok, err := a.AuthenticateToken(context.Background(), "t0k3n")
	if u != nil || ok || !errors.Is(err, ErrWebhook) {
		t.Fatalf("AuthenticateToken = %v, %v, %v; want an ErrWebhook", u, ok, err)
	}
	// client-go's error, naming the URL as kube-apiserver's log does.
	if want := `Post "` + srv.URL + `/authenticate?timeout=30s": `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start with %q", err, want)
	}
	// A refused connection is not one of the failures retried.
	if waits := clk.waited(); len(waits) != 0 {
		t.Errorf("waited %v, want no retry", waits)
	}
}

// TestOutOfTime: a call whose time ran out before its first attempt says
// so as kube-apiserver does.
func TestOutOfTime(t *testing.T) {
	a, w, _ := newTest(t, Config{}, ok(allowedV1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.call(ctx, authenticationv1.TokenReviewSpec{Token: "t0k3n"})
	if err == nil || err.Error() != "webhook call failed: context canceled" {
		t.Errorf("call = %v, want webhook call failed: context canceled", err)
	}
	if n := len(w.received()); n != 0 {
		t.Errorf("webhook called %d times, want 0", n)
	}
}

// TestAttemptTimeout: an attempt that runs out of time fails with
// client-go's timeout error and, as in kube-apiserver, is not retried
// (only the server saying it timed out is). The 30-second timeout is
// shortened here by building the client with a smaller one.
func TestAttemptTimeout(t *testing.T) {
	w := &fakeWebhook{answers: []answer{ok(allowedV1)}, arrived: make(chan struct{}, 1), hold: make(chan struct{})}
	path, srv := serve(t, w)
	a, clk := func() (*Authenticator, *fakeClock) {
		clk := newFakeClock()
		a, err := New(Config{KubeconfigFile: path, Version: "v1", Clock: clk, Logger: discard()})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := loadKubeconfig(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Timeout = 500 * time.Millisecond
		if a.reviewer, err = newReviewer(cfg, "v1"); err != nil {
			t.Fatal(err)
		}
		return a, clk
	}()
	// The handler is held until the test ends: the attempt can only
	// end by its timeout.
	t.Cleanup(func() { close(w.hold) })
	_, ok, err := a.AuthenticateToken(context.Background(), "t0k3n")
	if ok || !errors.Is(err, ErrWebhook) {
		t.Fatalf("AuthenticateToken = %v, %v; want an ErrWebhook", ok, err)
	}
	// net/http words the cause by the step the time ran out in; the URL
	// and the deadline are always there.
	prefix := `Post "` + srv.URL + `/authenticate?timeout=500ms": `
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) ||
		!(strings.Contains(msg, "Client.Timeout exceeded") || strings.Contains(msg, "context deadline exceeded")) {
		t.Errorf("error %q, want %q and a timeout", msg, prefix)
	}
	if n := len(w.received()); n != 1 {
		t.Errorf("webhook called %d times, want 1", n)
	}
	if waits := clk.waited(); len(waits) != 0 {
		t.Errorf("waited %v, want no retry", waits)
	}
}
