package differential

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// readyTimeout bounds a server's start: the reference takes several
// seconds on a loaded 2-core machine, portcullis a fraction of one.
const readyTimeout = 120 * time.Second

// target is a running server: portcullis or the reference.
type target struct {
	url string
	// log is where the server's output goes, shown when a case fails.
	log string
}

// errStartFailed is what start returns when the server exits instead of
// becoming ready: expected for suites that must not start.
var errStartFailed = errors.New("server exited before it was ready")

// referenceBin is the directory of the reference binaries
// (hack/reference/build.sh).
func referenceBin() string {
	if d := os.Getenv("PORTCULLIS_REFERENCE_BIN"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "portcullis-reference", "bin")
}

// disabledPlugins are kube-apiserver's default admission plugins that both
// servers run without unless a suite enables them: ServiceAccount needs the
// default ServiceAccount that only kube-controller-manager creates beside
// the reference, and the others change every pod, class and claim a
// scenario writes. The suites of each plugin enable it (a name in the
// suite's --enable-admission-plugins is taken off this list).
var disabledPlugins = []string{
	"CertificateApproval", "CertificateSigning", "CertificateSubjectRestriction",
	"ClusterTrustBundleAttest", "DefaultIngressClass", "DefaultStorageClass",
	"DefaultTolerationSeconds", "LimitRanger", "PersistentVolumeClaimResize",
	"PodSecurity", "PodTopologyLabels", "Priority", "ResourceQuota", "RuntimeClass",
	"ServiceAccount", "StorageObjectInUseProtection", "TaintNodesByCondition",
}

// pluginFlags are the common flags with disabledPlugins merged into the
// suite's --disable-admission-plugins, less what the suite enables.
func (e *env) pluginFlags(t *testing.T) []string {
	flags := e.commonFlags(t)
	var disabled, enabled []string
	rest := flags[:0:0]
	for _, f := range flags {
		if v, ok := strings.CutPrefix(f, "--disable-admission-plugins="); ok {
			disabled = append(disabled, strings.Split(v, ",")...)
			continue
		}
		if v, ok := strings.CutPrefix(f, "--enable-admission-plugins="); ok {
			enabled = append(enabled, strings.Split(v, ",")...)
		}
		rest = append(rest, f)
	}
	for _, p := range disabledPlugins {
		if !slices.Contains(enabled, p) {
			disabled = append(disabled, p)
		}
	}
	return append(rest, "--disable-admission-plugins="+strings.Join(disabled, ","))
}

// startPortcullis runs the binary with the suite's flags.
func startPortcullis(t *testing.T, e *env) (*target, error) { return startPortcullisWith(t, e) }

// startPortcullisWith runs the binary with the suite's flags and extra ones.
func startPortcullisWith(t *testing.T, e *env, extra ...string) (*target, error) {
	t.Helper()
	port := freePort(t)
	flags := e.pluginFlags(t)
	// The controllers portcullis runs in process that kube-apiserver
	// leaves to kube-controller-manager run only where the suite starts
	// them beside the reference.
	var off []string
	for _, c := range []string{"serviceaccount-controller", "root-ca-certificate-publisher-controller", "resourcequota-controller"} {
		if !slices.Contains(e.suite.ReferenceControllers, c) {
			off = append(off, "-"+c)
		}
	}
	if len(off) > 0 {
		flags = append(flags, "--controllers=*,"+strings.Join(off, ","))
	}
	args := append([]string{"serve",
		"--data-dir", filepath.Join(e.dir, "data"),
		"--bind-address", "127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
	}, append(flags, extra...)...)
	log := filepath.Join(e.dir, "portcullis.log")
	return startProcess(t, e, log, port, harness.BuildPortcullis(t), args...)
}

// startReference runs etcd and kube-apiserver from referenceBin with the
// suite's flags and those kube-apiserver needs beside them.
func startReference(t *testing.T, e *env) (*target, error) {
	t.Helper()
	return startKubeAPIServer(t, e, startEtcd(t, e))
}

// startEtcd runs the reference's etcd and returns its client URL.
func startEtcd(t *testing.T, e *env) string {
	t.Helper()
	bin := referenceBin()
	client, peer := freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	etcd := exec.Command(filepath.Join(bin, "etcd"), "--name", "reference",
		"--data-dir", filepath.Join(e.dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "reference="+peerURL, "--listen-metrics-urls", "",
		"--log-level", "warn")
	out, err := os.Create(filepath.Join(e.dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	etcd.Stdout, etcd.Stderr = out, out
	if err := etcd.Start(); err != nil {
		t.Fatalf("starting etcd from %s (hack/reference/build.sh builds it): %v", bin, err)
	}
	t.Cleanup(func() { stop(etcd); out.Close() })
	return etcdURL
}

// startKubeAPIServer runs the reference's kube-apiserver on the etcd at
// etcdURL with the suite's flags and those kube-apiserver needs beside them.
func startKubeAPIServer(t *testing.T, e *env, etcdURL string) (*target, error) {
	t.Helper()
	bin := referenceBin()
	port := freePort(t)
	flags := e.pluginFlags(t)
	args := append([]string{
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--etcd-servers=" + etcdURL,
		"--cert-dir=" + filepath.Join(e.dir, "kas-certs"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
	}, flags...)
	tg, err := startProcess(t, e, filepath.Join(e.dir, "kube-apiserver.log"), port, filepath.Join(bin, "kube-apiserver"), args...)
	if err == nil && len(e.suite.ReferenceControllers) > 0 {
		startControllers(t, e, bin, tg.url)
	}
	return tg, err
}

// startControllers runs kube-controller-manager with only the suite's
// controllers against the reference at url, as admin.
func startControllers(t *testing.T, e *env, bin, url string) {
	t.Helper()
	kcm := exec.Command(filepath.Join(bin, "kube-controller-manager"),
		"--kubeconfig="+e.kubeconfig(t, url, "admin"),
		"--controllers="+strings.Join(e.suite.ReferenceControllers, ","),
		"--bind-address=127.0.0.1", "--secure-port=0", "--leader-elect=false")
	out, err := os.Create(filepath.Join(e.dir, "kube-controller-manager.log"))
	if err != nil {
		t.Fatal(err)
	}
	kcm.Stdout, kcm.Stderr = out, out
	if err := kcm.Start(); err != nil {
		t.Fatalf("starting kube-controller-manager from %s: %v", bin, err)
	}
	t.Cleanup(func() { stop(kcm); out.Close() })
}

// startProcess runs bin and waits until /readyz on port answers ok (as
// admin) or the process exits. The process is stopped when the test ends.
func startProcess(t *testing.T, e *env, log string, port int, bin string, args ...string) (*target, error) {
	t.Helper()
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		out.Close()
	})
	tg := &target{url: fmt.Sprintf("https://127.0.0.1:%d", port), log: log}
	client := e.httpClient(t, "admin")
	deadline := time.After(readyTimeout)
	for {
		select {
		case <-exited:
			return tg, errStartFailed
		case <-deadline:
			t.Fatalf("%s not ready within %s:\n%s", filepath.Base(bin), readyTimeout, tail(log))
		case <-time.After(50 * time.Millisecond):
		}
		if readyz(client, tg.url) {
			return tg, nil
		}
	}
}

func readyz(c *http.Client, url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && string(b) == "ok"
}

func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// freePort asks the kernel for a port on 127.0.0.1 that is free now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpClient acts as user with its token or certificate and trusts the CA.
func (e *env) httpClient(t *testing.T, user string) *http.Client {
	t.Helper()
	ca, err := os.ReadFile(e.pki.CACert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c := e.creds[user]
	if c.cert != "" {
		pair, err := tls.LoadX509KeyPair(c.cert, c.key)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	var rt http.RoundTripper = &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
	if c.token != "" {
		rt = bearer{token: c.token, next: rt}
	}
	return &http.Client{Transport: rt, Timeout: 60 * time.Second}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	// A step's own Authorization header (a token it saved) wins.
	if r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// tail is the end of a log file, for failure messages.
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
		if len(lines) > 40 {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
