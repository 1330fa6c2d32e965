package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/portcullis/portcullis/hack/internal/probe"
	"github.com/portcullis/portcullis/internal/pki"
)

// readyTimeout bounds one start: kube-apiserver on one loaded core takes
// several seconds.
const readyTimeout = 120 * time.Second

var errExited = errors.New("server exited before it was ready")

// creds is the PKI both servers use, made once per bench run.
type creds struct {
	files        pki.Files
	saKey, saPub string
}

func makeCreds(dir string) (creds, error) {
	f, err := pki.Ensure(dir, []string{"127.0.0.1", "localhost"})
	if err != nil {
		return creds{}, fmt.Errorf("pki: %w", err)
	}
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return creds{}, fmt.Errorf("service account key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return creds{}, fmt.Errorf("service account key: %w", err)
	}
	c := creds{files: f, saKey: filepath.Join(dir, "sa.key"), saPub: filepath.Join(dir, "sa.pub")}
	if err := os.WriteFile(c.saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600); err != nil {
		return creds{}, err
	}
	if err := os.WriteFile(c.saPub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		return creds{}, err
	}
	return c, nil
}

// commonFlags are given to both servers.
func (c creds) commonFlags() []string {
	return []string{
		"--tls-cert-file=" + c.files.ServingCert,
		"--tls-private-key-file=" + c.files.ServingKey,
		"--client-ca-file=" + c.files.CACert,
		"--service-account-key-file=" + c.saPub,
		"--service-account-signing-key-file=" + c.saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--allow-privileged=true",
	}
}

// httpClient is an admin client for /readyz polling and profiles; the
// load uses client-go's own transport.
func (c creds) httpClient(timeout time.Duration) (*http.Client, error) {
	ca, err := os.ReadFile(c.files.CACert)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	pair, err := tls.LoadX509KeyPair(c.files.AdminCert, c.files.AdminKey)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}}, nil
}

// proc is one started server process; stop ends it.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	out    *os.File
}

func startProc(name, bin string, args []string, logPath string, pin bool) (*proc, error) {
	out, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	argv := append([]string{bin}, args...)
	if pin {
		// taskset execs bin, so the pid is the server's own.
		argv = append([]string{"taskset", "-c", "0"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, exited: make(chan struct{}), out: out}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	p.out.Close()
}

// running is a started server: one process (portcullis) or two
// (kube-apiserver, then etcd), measured together.
type running struct {
	procs []*proc
	url   string
	start time.Duration // launch to the first /readyz "ok"
}

func (r *running) cpu() (time.Duration, error) {
	var sum time.Duration
	for _, p := range r.procs {
		c, err := processCPU(p.pid())
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p.name, err)
		}
		sum += c
	}
	return sum, nil
}

func (r *running) rssKiB() (int64, error) {
	var sum int64
	for _, p := range r.procs {
		k, err := processRSSKiB(p.pid())
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p.name, err)
		}
		sum += k
	}
	return sum, nil
}

// stop ends the processes in order: kube-apiserver before its etcd.
func (r *running) stop() {
	for _, p := range r.procs {
		p.stop()
	}
}

// servers knows how to start either server fresh in a directory.
type servers struct {
	creds         creds
	refBin        string
	portcullisBin string
	port          int
	etcdPort      int
	etcdPeerPort  int
	pin           bool
}

func (s *servers) url() string { return fmt.Sprintf("https://127.0.0.1:%d", s.port) }

func (s *servers) start(ctx context.Context, which, dir string) (*running, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for _, p := range s.ports(which) {
		if err := portFree(p); err != nil {
			return nil, err
		}
	}
	if which == reference {
		return s.startReference(ctx, dir)
	}
	return s.startPortcullis(ctx, dir)
}

func (s *servers) ports(which string) []int {
	if which == reference {
		return []int{s.port, s.etcdPort, s.etcdPeerPort}
	}
	return []int{s.port}
}

// portFree fails when something still listens on port: the previous run's
// server, or another program, which would be measured instead.
func portFree(port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("port %d is in use: %w", port, err)
	}
	return l.Close()
}

func (s *servers) startPortcullis(ctx context.Context, dir string) (*running, error) {
	args := append([]string{"serve",
		"--data-dir", filepath.Join(dir, "data"),
		"--bind-address", "127.0.0.1",
		fmt.Sprintf("--secure-port=%d", s.port),
		// kube-apiserver runs here without kube-controller-manager, so
		// portcullis runs without the in-process controllers that would
		// stand in for it: both serve the same objects (no
		// kube-root-ca.crt ConfigMap in the listed namespace) and do the
		// same work (the policy status controller would type-check the
		// pod workloads' 1,024 policies while they are measured).
		"--controllers=*,-serviceaccount-controller,-root-ca-certificate-publisher-controller,-resourcequota-controller,-validatingadmissionpolicy-status-controller",
	}, s.creds.commonFlags()...)
	launched := time.Now()
	p, err := startProc(portcullis, s.portcullisBin, args, filepath.Join(dir, "portcullis.log"), s.pin)
	if err != nil {
		return nil, err
	}
	r := &running{procs: []*proc{p}, url: s.url()}
	if err := s.waitReady(ctx, p); err != nil {
		r.stop()
		return nil, err
	}
	r.start = time.Since(launched)
	return r, nil
}

func (s *servers) startReference(ctx context.Context, dir string) (*running, error) {
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", s.etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", s.etcdPeerPort)
	etcd, err := startProc("etcd", filepath.Join(s.refBin, "etcd"), []string{"--name", "reference",
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "reference=" + peerURL, "--listen-metrics-urls", "",
		"--log-level", "warn"}, filepath.Join(dir, "etcd.log"), s.pin)
	if err != nil {
		return nil, err
	}
	if err := waitEtcd(ctx, etcd, etcdURL); err != nil {
		etcd.stop()
		return nil, err
	}
	args := append([]string{
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", s.port),
		"--etcd-servers=" + etcdURL,
		"--cert-dir=" + filepath.Join(dir, "kas-certs"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
	}, s.creds.commonFlags()...)
	launched := time.Now()
	kas, err := startProc("kube-apiserver", filepath.Join(s.refBin, "kube-apiserver"), args, filepath.Join(dir, "kube-apiserver.log"), s.pin)
	if err != nil {
		etcd.stop()
		return nil, err
	}
	r := &running{procs: []*proc{kas, etcd}, url: s.url()}
	if err := s.waitReady(ctx, kas); err != nil {
		r.stop()
		return nil, err
	}
	r.start = time.Since(launched)
	return r, nil
}

func waitEtcd(ctx context.Context, p *proc, url string) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := c.Get(url + "/health"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), `"health":"true"`) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd not healthy in 30s:\n%s", tail(p.log))
		}
		select {
		case <-p.exited:
			return fmt.Errorf("etcd: %w:\n%s", errExited, tail(p.log))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitReady polls /readyz every 5 ms (the start-up figure's resolution)
// until it answers 200 "ok".
func (s *servers) waitReady(ctx context.Context, p *proc) error {
	c, err := s.creds.httpClient(2 * time.Second)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(readyTimeout)
	for {
		if probe.Ready(ctx, c, s.url()) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready in %s:\n%s", p.name, readyTimeout, tail(p.log))
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s: %w:\n%s", p.name, errExited, tail(p.log))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// tail is the end of a log, for failure messages.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > 20 {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
