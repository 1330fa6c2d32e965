package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// waitTimeout bounds every wait for something the server does asynchronously.
const waitTimeout = 20 * time.Second

// createNamespace makes a namespace for one test to work in.
func createNamespace(t *testing.T, c kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

var columnGap = regexp.MustCompile(`\s{2,}`)

// table splits kubectl's table output into a header and rows of cells.
// Columns are separated by at least two spaces (kubectl pads with three), so
// headers such as "NOMINATED NODE" stay one cell.
func table(t *testing.T, out string) (header []string, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("no table in output %q", out)
	}
	header = columnGap.Split(strings.TrimSpace(lines[0]), -1)
	for _, l := range lines[1:] {
		rows = append(rows, columnGap.Split(strings.TrimSpace(l), -1))
	}
	return header, rows
}

// row returns the table row whose first cell is name.
func row(t *testing.T, rows [][]string, name string) []string {
	t.Helper()
	for _, r := range rows {
		if len(r) > 0 && r[0] == name {
			return r
		}
	}
	t.Fatalf("no row %q in %q", name, rows)
	return nil
}

// lines splits output into its non-empty lines.
func lines(out string) []string {
	var ls []string
	for l := range strings.SplitSeq(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// eventually retries check until it returns nil or waitTimeout passes.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %s: %v", what, waitTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForMetric waits until a line of the server's /metrics holds every
// one of parts, e.g. a series and `status="failure"} 1`: the event that a
// reload was judged, for the checks that follow it.
func waitForMetric(t *testing.T, s *harness.Server, parts ...string) {
	t.Helper()
	eventually(t, "a /metrics line with "+strings.Join(parts, " and "), func() error {
		out, errOut, err := s.Kubectl(t, "get", "--raw", "/metrics")
		if err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "#") && containsAll(line, parts) {
				return nil
			}
		}
		return fmt.Errorf("none in:\n%s", grepLines(out, parts[0]))
	})
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// background is a kubectl command running while the test does other things,
// such as `get -w` or `wait`.
type background struct {
	cmd    *exec.Cmd
	lines  chan string // stdout, line by line; closed at EOF
	stderr *syncBuffer
	exited chan struct{} // closed once kubectl is reaped
	err    error         // kubectl's exit error, valid after exited
	cancel context.CancelFunc
}

// startKubectl starts kubectl in the background; the test's cleanup kills
// it if it still runs.
func startKubectl(t *testing.T, s *harness.Server, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := s.KubectlCommand(ctx, t, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatalf("kubectl stdout: %v", err)
	}
	b := &background{cmd: cmd, lines: make(chan string, 100), stderr: &syncBuffer{}, exited: make(chan struct{}), cancel: cancel}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting kubectl %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("kubectl %s (background)", strings.Join(args, " "))
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			b.lines <- sc.Text()
		}
		close(b.lines)
		_, _ = io.Copy(io.Discard, stdout)
		b.err = cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(func() { b.stop() })
	return b
}

// next returns the next stdout line, failing the test if none comes in time.
func (b *background) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-b.lines:
		if !ok {
			t.Fatalf("kubectl %s ended early; stderr:\n%s", strings.Join(b.cmd.Args[1:], " "), b.stderr)
		}
		t.Logf("  > %s", l)
		return l
	case <-time.After(waitTimeout):
		t.Fatalf("kubectl %s printed nothing within %s; stderr:\n%s", strings.Join(b.cmd.Args[1:], " "), waitTimeout, b.stderr)
		return ""
	}
}

// wait waits for kubectl to exit on its own and returns its exit error.
func (b *background) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-b.exited:
		return b.err
	case <-time.After(waitTimeout):
		t.Fatalf("kubectl %s did not exit within %s; stderr:\n%s", strings.Join(b.cmd.Args[1:], " "), waitTimeout, b.stderr)
		return nil
	}
}

// waitStderr waits until kubectl's stderr contains substr.
func (b *background) waitStderr(t *testing.T, substr string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !strings.Contains(b.stderr.String(), substr) {
		select {
		case <-b.exited:
			t.Fatalf("kubectl %s exited before logging %q; stderr:\n%s", strings.Join(b.cmd.Args[1:], " "), substr, b.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %s did not log %q within %s; stderr:\n%s", strings.Join(b.cmd.Args[1:], " "), substr, waitTimeout, b.stderr)
		}
	}
}

// stop kills kubectl (a no-op once it exited) and reaps it. It may be
// called more than once.
func (b *background) stop() {
	b.cancel()
	for range b.lines { // unblocks the reader so it can reap kubectl
	}
	<-b.exited
}

// syncBuffer is a strings.Builder that one goroutine writes while another reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// withoutRootCA starts a server without the root CA publisher, for tests
// that count every ConfigMap of a namespace (or every webhook call a
// ConfigMap write makes): the publisher's kube-root-ca.crt would be one
// more, in every namespace, as in any cluster.
const withoutRootCA = "--controllers=*,-root-ca-certificate-publisher-controller"

// allowPrivileged lets privileged pods through validation, as nearly every
// cluster runs kube-apiserver, for tests of the policies that judge them.
const allowPrivileged = "--allow-privileged=true"
