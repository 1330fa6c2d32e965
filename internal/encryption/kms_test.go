package encryption

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/internal/configfile"
	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
)

// kmsProvider is a KMS v2 provider entry of a configuration; timeout ""
// leaves it to the default.
func kmsProvider(name, socket, timeout string) string {
	p := "  - kms:\n      apiVersion: v2\n      name: " + name + "\n      endpoint: " + kmstest.Endpoint(socket) + "\n"
	if timeout != "" {
		p += "      timeout: " + timeout + "\n"
	}
	return p
}

// TestReloadReusesUnchangedKMS checks that a reload keeps the connection
// (and DEK cache) of a KMS plugin whose name, endpoint and timeout it does
// not change, and replaces one whose configuration it does change.
func TestReloadReusesUnchangedKMS(t *testing.T) {
	ctx := context.Background()
	socket, other := kmstest.SocketPath(t), kmstest.SocketPath(t)
	kmstest.Start(t, kmstest.New(kmstest.Options{}), socket)
	kmstest.Start(t, kmstest.New(kmstest.Options{}), other)
	tests := []struct {
		name   string
		from   string
		to     string
		reused bool
	}{
		{name: "unchanged, timeout defaulted", from: kmsProvider("p", socket, ""), to: kmsProvider("p", socket, "") + gcm("k1", 1), reused: true},
		{name: "unchanged, timeout explicit", from: kmsProvider("p", socket, "5s"), to: kmsProvider("p", socket, "5s") + gcm("k1", 1), reused: true},
		{name: "default timeout written out", from: kmsProvider("p", socket, ""), to: kmsProvider("p", socket, "3s"), reused: true},
		{name: "timeout changed", from: kmsProvider("p", socket, "5s"), to: kmsProvider("p", socket, "6s")},
		{name: "endpoint changed", from: kmsProvider("p", socket, ""), to: kmsProvider("p", other, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := newStore(t, encConfig("- resources: [secrets]\n  providers:\n"+tt.from), nil)
			before := s.kms["p"]
			if before == nil {
				t.Fatal("no KMS plugin p after New")
			}
			if err := s.apply(ctx, []byte(encConfig("- resources: [secrets]\n  providers:\n"+tt.to)), "h2"); err != nil {
				t.Fatal(err)
			}
			after := s.kms["p"]
			if reused := after == before; reused != tt.reused {
				t.Fatalf("plugin reused = %v, want %v", reused, tt.reused)
			}
			if len(s.current().kms) != 1 || s.current().kms[0] != after {
				t.Fatalf("the configuration in use does not use the plugin in s.kms")
			}
		})
	}
}

// TestReloadRetiresAfterCallsEnd checks how long a KMS plugin dropped by a
// reload stays connected: long enough for a request that started before
// the swap to finish its calls (two timeouts, as kube-apiserver's grace
// period), and never less than retireAfter.
func TestReloadRetiresAfterCallsEnd(t *testing.T) {
	ctx := context.Background()
	socket, other := kmstest.SocketPath(t), kmstest.SocketPath(t)
	kmstest.Start(t, kmstest.New(kmstest.Options{}), socket)
	kmstest.Start(t, kmstest.New(kmstest.Options{}), other)
	tests := []struct {
		timeout string
		want    time.Duration
	}{
		{timeout: "", want: retireAfter},
		{timeout: "1s", want: retireAfter},
		{timeout: "30s", want: time.Minute},
	}
	for _, tt := range tests {
		t.Run("timeout "+tt.timeout, func(t *testing.T) {
			s, _, _ := newStore(t, encConfig("- resources: [secrets]\n  providers:\n"+kmsProvider("p", socket, tt.timeout)), nil)
			before := time.Now()
			if err := s.apply(ctx, []byte(encConfig("- resources: [secrets]\n  providers:\n"+kmsProvider("p", other, tt.timeout))), "h2"); err != nil {
				t.Fatal(err)
			}
			after := time.Now()
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.retired) != 1 {
				t.Fatalf("%d plugins retired, want 1", len(s.retired))
			}
			// The reload reads the clock between before and after, and
			// retires the plugin until then plus the grace: bracketing
			// the deadline does not depend on how long the reload took.
			if d := s.retired[0].deadline; d.Before(before.Add(tt.want)) || d.After(after.Add(tt.want)) {
				t.Fatalf("retired until %v, want the time of the reload (%v to %v) plus %v", d, before, after, tt.want)
			}
		})
	}
}

// TestReloadWaitsForAStartingPlugin: a reload onto a KMS plugin that
// answers healthy only after it has been asked is applied, not refused;
// one that never does is refused, keeping the configuration in use.
func TestReloadWaitsForAStartingPlugin(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t, encConfig("- resources: [secrets]\n  providers:\n"+gcm("k1", 1)), nil)

	// reload applies a configuration onto plugin in the background, and
	// returns the result once done.
	reload := func(ctx context.Context, name string, plugin *kmstest.Plugin, hash string) func() error {
		socket := kmstest.SocketPath(t)
		kmstest.Start(t, plugin, socket)
		done := make(chan error, 1)
		go func() {
			done <- s.apply(ctx, []byte(encConfig("- resources: [secrets]\n  providers:\n"+kmsProvider(name, socket, "1s"))), hash)
		}()
		return func() error {
			select {
			case err := <-done:
				return err
			case <-time.After(time.Minute):
				t.Fatal("the reload never ended")
				return nil
			}
		}
	}
	// askedOnce waits until the reload has asked plugin for its health.
	askedOnce := func(plugin *kmstest.Plugin) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for plugin.Calls(kmstest.MethodStatus) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the reload never asked the plugin for its health")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	starting := kmstest.New(kmstest.Options{})
	starting.SetHealthz("starting")
	result := reload(ctx, "late", starting, "h2")
	askedOnce(starting)
	starting.SetHealthz("ok")
	if err := result(); err != nil {
		t.Fatalf("reload onto a plugin healthy after the first ask: %v", err)
	}
	if kms := s.current().kms; len(kms) != 1 || kms[0].cfg.Name != "late" {
		t.Fatal("the reload was not applied")
	}

	never := kmstest.New(kmstest.Options{})
	never.SetHealthz("broken")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	result = reload(cctx, "never", never, "h3")
	askedOnce(never)
	cancel()
	if err := result(); !errors.Is(err, configfile.ErrRetry) || !strings.Contains(err.Error(), "KMS plugin not healthy") {
		t.Fatalf("reload onto a plugin that never answers healthy: %v, want it refused for its health", err)
	}
	if kms := s.current().kms; len(kms) != 1 || kms[0].cfg.Name != "late" {
		t.Fatal("a refused reload replaced the configuration in use")
	}
}
