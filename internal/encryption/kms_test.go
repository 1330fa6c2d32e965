package encryption

import (
	"context"
	"testing"
	"time"

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
			start := time.Now()
			if err := s.apply(ctx, []byte(encConfig("- resources: [secrets]\n  providers:\n"+kmsProvider("p", other, tt.timeout))), "h2"); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.retired) != 1 {
				t.Fatalf("%d plugins retired, want 1", len(s.retired))
			}
			if got := s.retired[0].deadline.Sub(start); got < tt.want || got > tt.want+5*time.Second {
				t.Fatalf("retired for %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReloadWaitsForAStartingPlugin: a reload onto a KMS plugin that comes
// up a moment later is applied, not refused; one that never comes up is
// refused once its grace has passed, keeping the configuration in use.
func TestReloadWaitsForAStartingPlugin(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t, encConfig("- resources: [secrets]\n  providers:\n"+gcm("k1", 1)), nil)

	late := kmstest.SocketPath(t)
	pctx, stopPlugin := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		time.Sleep(500 * time.Millisecond)
		lis, err := kmstest.Listen(late)
		if err != nil {
			return // the reload below then fails, naming the plugin
		}
		_ = kmstest.New(kmstest.Options{}).ServeListener(pctx, lis)
	}()
	defer func() {
		stopPlugin()
		<-served
	}()
	if err := s.apply(ctx, []byte(encConfig("- resources: [secrets]\n  providers:\n"+kmsProvider("late", late, "1s"))), "h2"); err != nil {
		t.Fatalf("reload onto a plugin starting 0.5 s later: %v", err)
	}
	if kms := s.current().kms; len(kms) != 1 || kms[0].cfg.Name != "late" {
		t.Fatal("the reload was not applied")
	}

	absent := kmstest.SocketPath(t)
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.apply(cctx, []byte(encConfig("- resources: [secrets]\n  providers:\n"+kmsProvider("absent", absent, "1s"))), "h3"); err == nil {
		t.Fatal("a reload onto a plugin that never answers was applied")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the refused reload took %s with a 3 s context", took)
	}
	if kms := s.current().kms; len(kms) != 1 || kms[0].cfg.Name != "late" {
		t.Fatal("a refused reload replaced the configuration in use")
	}
}
