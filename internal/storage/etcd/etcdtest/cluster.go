package etcdtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

const (
	// readyTimeout bounds the wait for a member to join its cluster; a
	// busy two-core machine electing a leader among three members in
	// one process needs a few seconds at worst.
	readyTimeout = time.Minute
	// portAttempts is how often Start picks fresh ports after a port was
	// taken between the probe and etcd's listen.
	portAttempts = 5
	// firstPort and portRange are the ports these tests may use.
	firstPort, portRange = 24000, 1000
)

// Options says what cluster Start runs.
type Options struct {
	// Members is 1 or 3; 0 means 1.
	Members int
	// TLS serves clients over https with client certificate auth; see
	// Cluster.Certs.
	TLS bool
}

// Cluster is a running etcd cluster. Its methods report failures on the
// test that started it and are not safe for concurrent use: call them
// from that test's goroutine.
type Cluster struct {
	t       testing.TB
	certs   *Certs
	members []*member
}

// member is one etcd server and what it needs to start again.
type member struct {
	cfg  *embed.Config
	etcd *embed.Etcd // nil while stopped
}

// Start runs a cluster as opts says and returns once every member is
// ready. The cluster is closed when the test ends.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	n := opts.Members
	if n == 0 {
		n = 1
	}
	if n != 1 && n != 3 {
		t.Fatalf("etcdtest: %d members; want 1 or 3", n)
	}
	// One base directory made before the cleanup is registered, so that
	// the members are closed before their directories are removed.
	base := t.TempDir()
	c := &Cluster{t: t}
	t.Cleanup(c.close)
	if opts.TLS {
		certs, err := newCerts(filepath.Join(base, "pki"))
		if err != nil {
			t.Fatalf("etcdtest: %v", err)
		}
		c.certs = certs
	}
	var err error
	for attempt := range portAttempts {
		dir := filepath.Join(base, "attempt-"+strconv.Itoa(attempt))
		if err = c.start(dir, n); err == nil {
			return c
		}
		c.close()
		c.members = nil
		if !addrInUse(err) {
			break
		}
	}
	t.Fatalf("etcdtest: starting %d members: %v", n, err)
	return nil
}

// start builds the members' configurations on fresh ports and starts
// them together: a member of three waits for its peers before it is
// ready.
func (c *Cluster) start(dir string, n int) error {
	ports, err := freePorts(2 * n)
	if err != nil {
		return err
	}
	scheme := "http"
	if c.certs != nil {
		scheme = "https"
	}
	var initial []string
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = "m" + strconv.Itoa(i)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		cfg.Logger = "zap"
		cfg.LogLevel = "error"
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.InitialClusterToken = "etcdtest"
		clientURL := url.URL{Scheme: scheme, Host: "127.0.0.1:" + strconv.Itoa(ports[2*i])}
		peerURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(ports[2*i+1])}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{clientURL}, []url.URL{clientURL}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peerURL}, []url.URL{peerURL}
		if c.certs != nil {
			cfg.ClientTLSInfo = transport.TLSInfo{
				CertFile: c.certs.ServerCertFile, KeyFile: c.certs.ServerKeyFile,
				TrustedCAFile: c.certs.CAFile, ClientCertAuth: true,
			}
		}
		initial = append(initial, cfg.Name+"="+peerURL.String())
		c.members = append(c.members, &member{cfg: cfg})
	}
	for _, m := range c.members {
		m.cfg.InitialCluster = strings.Join(initial, ",")
		if err := os.MkdirAll(m.cfg.Dir, 0o700); err != nil {
			return fmt.Errorf("member directory: %w", err)
		}
	}
	for _, m := range c.members {
		e, err := embed.StartEtcd(m.cfg)
		if err != nil {
			return fmt.Errorf("starting member %s: %w", m.cfg.Name, err)
		}
		m.etcd = e
	}
	for _, m := range c.members {
		if err := waitReady(m); err != nil {
			return err
		}
	}
	return nil
}

// waitReady waits until the member has published itself to the cluster,
// which takes a quorum: a restarted member that is ready has rejoined.
func waitReady(m *member) error {
	select {
	case <-m.etcd.Server.ReadyNotify():
		return nil
	case err := <-m.etcd.Err():
		return fmt.Errorf("member %s failed: %w", m.cfg.Name, err)
	case <-time.After(readyTimeout):
		return fmt.Errorf("member %s not ready within %s", m.cfg.Name, readyTimeout)
	}
}

// Endpoints are the client URLs of every member, stopped or not, in
// member order: what --etcd-servers lists.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.cfg.AdvertiseClientUrls[0].String()
	}
	return eps
}

// Certs are the TLS files of a cluster started with Options.TLS, nil
// otherwise.
func (c *Cluster) Certs() *Certs { return c.certs }

// StopMember stops member i (from 0), as a clean shutdown of that etcd
// process would; its data directory stays for RestartMember.
func (c *Cluster) StopMember(i int) {
	c.t.Helper()
	m := c.member(i)
	if m.etcd == nil {
		c.t.Fatalf("etcdtest: member %d is already stopped", i)
	}
	m.etcd.Close()
	m.etcd = nil
}

// RestartMember starts stopped member i again on its data directory and
// ports, and returns once it has rejoined the cluster.
func (c *Cluster) RestartMember(i int) {
	c.t.Helper()
	m := c.member(i)
	if m.etcd != nil {
		c.t.Fatalf("etcdtest: member %d is running", i)
	}
	// The log on disk, not the flag, says which cluster it belongs to.
	m.cfg.ClusterState = embed.ClusterStateFlagExisting
	e, err := embed.StartEtcd(m.cfg)
	if err != nil {
		c.t.Fatalf("etcdtest: restarting member %d: %v", i, err)
	}
	m.etcd = e
	if err := waitReady(m); err != nil {
		c.t.Fatalf("etcdtest: restarting member %d: %v", i, err)
	}
}

func (c *Cluster) member(i int) *member {
	c.t.Helper()
	if i < 0 || i >= len(c.members) {
		c.t.Fatalf("etcdtest: no member %d in a cluster of %d", i, len(c.members))
	}
	return c.members[i]
}

// Client is a client of the whole cluster for the test's own checks,
// closed when the test ends.
func (c *Cluster) Client(t testing.TB) *clientv3.Client {
	t.Helper()
	cfg := clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 10 * time.Second, Logger: zap.NewNop()}
	if c.certs != nil {
		info := transport.TLSInfo{CertFile: c.certs.ClientCertFile, KeyFile: c.certs.ClientKeyFile, TrustedCAFile: c.certs.CAFile}
		tlsConfig, err := info.ClientConfig()
		if err != nil {
			t.Fatalf("etcdtest: client TLS: %v", err)
		}
		cfg.TLS = tlsConfig
	}
	client, err := clientv3.New(cfg)
	if err != nil {
		t.Fatalf("etcdtest: client: %v", err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// close stops every running member; it may run more than once.
func (c *Cluster) close() {
	for _, m := range c.members {
		if m.etcd != nil {
			m.etcd.Close()
			m.etcd = nil
		}
	}
}

// freePorts finds n distinct ports in the tests' range that nothing
// listens on now.
func freePorts(n int) ([]int, error) {
	var ports []int
	start := rand.IntN(portRange)
	for i := 0; i < portRange && len(ports) < n; i++ {
		port := firstPort + (start+i)%portRange
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		_ = l.Close()
		ports = append(ports, port)
	}
	if len(ports) < n {
		return nil, fmt.Errorf("only %d free ports in %d-%d, want %d", len(ports), firstPort, firstPort+portRange-1, n)
	}
	return ports, nil
}

// addrInUse tells a port taken since the probe from other failures;
// embed does not always wrap the listener's error.
func addrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}
