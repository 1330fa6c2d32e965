package etcd

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/namespace"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// shared is the one embedded etcd of this package's tests and a client to
// it; each test store gets its own namespace on it.
var shared struct {
	etcd   *embed.Etcd
	url    string
	client *clientv3.Client
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "portcullis-etcd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	e, clientURL, err := startEtcd(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Close()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{clientURL}, DialTimeout: 10 * time.Second, Logger: quietZap()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer client.Close()
	shared.etcd, shared.url, shared.client = e, clientURL, client
	return m.Run()
}

// freePort finds a port in 23000-23999, the range these tests may use.
func freePort() (int, error) {
	base := 23000 + rand.IntN(1000)
	for i := range 1000 {
		port := 23000 + (base-23000+i)%1000
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			l.Close()
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port in 23000-23999")
}

// startEtcd starts a one-member etcd in dir; with tlsInfo, its client
// URL is https and it requires what tlsInfo says.
func startEtcd(dir string, tlsInfo *transport.TLSInfo) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.Logger = "zap"
	scheme := "http"
	if tlsInfo != nil {
		scheme = "https"
		cfg.ClientTLSInfo = *tlsInfo
	}
	var urls [2]url.URL
	for i, sch := range []string{scheme, "http"} {
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		urls[i] = url.URL{Scheme: sch, Host: "127.0.0.1:" + strconv.Itoa(port)}
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{urls[0]}, []url.URL{urls[0]}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{urls[1]}, []url.URL{urls[1]}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("etcd failed: %w", err)
	case <-time.After(time.Minute):
		e.Close()
		return nil, "", fmt.Errorf("etcd not ready after a minute")
	}
	return e, urls[0].String(), nil
}

var namespaces atomic.Int64

// newNamespace returns a fresh key space on the shared etcd.
func newNamespace() string {
	return fmt.Sprintf("/test-%d", namespaces.Add(1))
}

// namespacedClient is a client whose KV and Watcher see only ns. It has
// no connection of its own and is never closed: closing it would close
// the shared client's watcher.
func namespacedClient(ns string) *clientv3.Client {
	c := clientv3.NewCtxClient(context.Background())
	c.KV = namespace.NewKV(shared.client.KV, ns)
	c.Watcher = namespace.NewWatcher(shared.client.Watcher, ns)
	return c
}

// newTestStore is a store on a namespace of the shared etcd (a fresh one
// when ns is empty), closed on cleanup.
func newTestStore(t testing.TB, ns string, opts Options) *Store {
	t.Helper()
	if ns == "" {
		ns = newNamespace()
	}
	s := New(namespacedClient(ns), opts)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func quietZap() *zap.Logger { return zap.NewNop() }

func quietSlog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func itoa(n int) string { return strconv.Itoa(n) }
