package etcdtest

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestThreeMembers: with one member of three stopped the cluster still
// takes writes; the restarted member has them.
func TestThreeMembers(t *testing.T) {
	c := Start(t, Options{Members: 3})
	if got := len(c.Endpoints()); got != 3 {
		t.Fatalf("Endpoints = %v, want 3", c.Endpoints())
	}
	client := c.Client(t)
	mustPut(t, client, "/before", "1")

	c.StopMember(1)
	mustPut(t, client, "/during", "2")

	c.RestartMember(1)
	// A client of the restarted member alone reads what was written
	// while it was away: it has caught up, not merely started.
	only := memberClient(t, c, 1)
	for key, want := range map[string]string{"/before": "1", "/during": "2"} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		res, err := only.Get(ctx, key)
		cancel()
		if err != nil {
			t.Fatalf("Get %s from the restarted member: %v", key, err)
		}
		if len(res.Kvs) != 1 || string(res.Kvs[0].Value) != want {
			t.Fatalf("Get %s from the restarted member = %v, want %q", key, res.Kvs, want)
		}
	}
	mustPut(t, client, "/after", "3")
}

// TestTLS: a TLS cluster answers a client with the generated certificate.
func TestTLS(t *testing.T) {
	c := Start(t, Options{TLS: true})
	if c.Certs() == nil {
		t.Fatal("Certs = nil on a TLS cluster")
	}
	for _, ep := range c.Endpoints() {
		if !strings.HasPrefix(ep, "https://") {
			t.Fatalf("endpoint %s is not https", ep)
		}
	}
	mustPut(t, c.Client(t), "/tls", "1")
}

func mustPut(t *testing.T, c *clientv3.Client, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, key, value); err != nil {
		t.Fatalf("Put %s: %v", key, err)
	}
}

// memberClient talks to member i only, with linearizable reads, which
// that member answers only once it is part of the quorum again.
func memberClient(t *testing.T, c *Cluster, i int) *clientv3.Client {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()[i : i+1], DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}
