package kmsv2

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
)

// fakeClock is the provider's clock in tests that cross the write lease.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testEnv is a provider talking to an in-process plugin.
type testEnv struct {
	plugin *kmstest.Plugin
	socket string
	stop   func()
	p      *Provider
	reg    *prometheus.Registry
	clock  *fakeClock
}

type envOption func(*Config, *kmstest.Options)

func withTimeout(d time.Duration) envOption {
	return func(c *Config, _ *kmstest.Options) { c.Timeout = d }
}

func withAnnotations(a map[string][]byte) envOption {
	return func(_ *Config, o *kmstest.Options) { o.Annotations = a }
}

func withName(name string) envOption {
	return func(c *Config, _ *kmstest.Options) { c.Name = name }
}

// newEnv starts a plugin and a provider on it; the provider has polled
// once, so it can write.
func newEnv(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	e := newEnvNoProbe(t, opts...)
	// Retried: tests with short timeouts must not fail on a slow first
	// connection of a loaded machine.
	var err error
	for range 10 {
		if err = e.p.Check(context.Background()); err == nil {
			return e
		}
	}
	t.Fatalf("Check: %v", err)
	return nil
}

// newEnvNoProbe is newEnv before the provider's first poll.
func newEnvNoProbe(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	cfg := Config{Name: "kms1", Timeout: 2 * time.Second, APIServerID: "apiserver-1"}
	var popts kmstest.Options
	for _, o := range opts {
		o(&cfg, &popts)
	}
	e := &testEnv{
		plugin: kmstest.New(popts),
		socket: kmstest.SocketPath(t),
		reg:    prometheus.NewRegistry(),
		clock:  newFakeClock(),
	}
	e.stop = kmstest.Start(t, e.plugin, e.socket)
	cfg.Endpoint = kmstest.Endpoint(e.socket)
	cfg.Registerer = e.reg
	e.p = e.newProvider(t, cfg)
	return e
}

// newProvider is another provider on the same plugin, as a restarted or
// second server would be.
func (e *testEnv) newProvider(t testing.TB, cfg Config) *Provider {
	t.Helper()
	if cfg.Name == "" {
		cfg = Config{Name: "kms1", Timeout: 2 * time.Second, Registerer: prometheus.NewRegistry()}
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = kmstest.Endpoint(e.socket)
	}
	p, err := newProvider(cfg, e.clock.Now)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func mustToStorage(t testing.TB, p *Provider, plaintext, dataCtx string) []byte {
	t.Helper()
	out, err := p.ToStorage(context.Background(), []byte(plaintext), []byte(dataCtx))
	if err != nil {
		t.Fatalf("ToStorage: %v", err)
	}
	return out
}

func mustFromStorage(t testing.TB, p *Provider, stored []byte, dataCtx string) (string, bool) {
	t.Helper()
	out, stale, err := p.FromStorage(context.Background(), stored, []byte(dataCtx))
	if err != nil {
		t.Fatalf("FromStorage: %v", err)
	}
	return string(out), stale
}
