package harness

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain doubles as a fake portcullis: the harness starts its binary with
// "serve" first, which go test never passes, so the lifecycle tests need no
// real server.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		fakeServe(os.Args[2:])
		return
	}
	portcullis.once.Do(func() { portcullis.path = os.Args[0] })
	Main(m)
}

// fakeServe logs a ready line for its --data-dir and exits 0 on SIGTERM.
func fakeServe(args []string) {
	dir := ""
	for i, a := range args {
		if a == "--data-dir" && i+1 < len(args) {
			dir = args[i+1]
		}
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	fmt.Fprintf(os.Stderr, "time=2026-01-01T00:00:00Z level=INFO msg=starting\n")
	fmt.Fprintf(os.Stderr, "time=2026-01-01T00:00:00Z level=INFO msg=%q address=https://127.0.0.1:%d kubeconfig=%s\n",
		readyMessage, 40000+os.Getpid()%1000, kubeconfig)
	<-term
	os.Exit(0)
}

func TestParseReadyLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want readyLine
		err  error
	}{
		{
			name: "slog text",
			line: `time=2026-05-01T10:00:00.000Z level=INFO msg="portcullis is ready" address=https://127.0.0.1:41234 kubeconfig=/tmp/d/admin.kubeconfig`,
			want: readyLine{Address: "https://127.0.0.1:41234", Kubeconfig: "/tmp/d/admin.kubeconfig"},
		},
		{
			name: "quoted path with spaces, extra fields",
			line: `level=INFO msg="portcullis is ready" version=v0.1.0 address=https://127.0.0.1:1 kubeconfig="/tmp/a b/admin.kubeconfig" elapsed=12ms`,
			want: readyLine{Address: "https://127.0.0.1:1", Kubeconfig: "/tmp/a b/admin.kubeconfig"},
		},
		{name: "other message", line: `level=INFO msg="listening" address=https://127.0.0.1:1`, err: errNoReadyLine},
		{name: "message in another key", line: `level=INFO note="portcullis is ready" msg=x`, err: errNoReadyLine},
		{name: "not logfmt", line: `panic: runtime error`, err: errNoReadyLine},
		{name: "no kubeconfig", line: `msg="portcullis is ready" address=https://127.0.0.1:1`, err: errBadReadyLine},
		{name: "plain http", line: `msg="portcullis is ready" address=http://127.0.0.1:1 kubeconfig=k`, err: errBadReadyLine},
		{name: "unterminated quote", line: `msg="portcullis is ready address=https://x`, err: errNoReadyLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseReadyLine(tt.line)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseReadyLine(f *testing.F) {
	f.Add(`time=x level=INFO msg="portcullis is ready" address=https://127.0.0.1:1 kubeconfig="/a b"`)
	f.Add(`msg="\x00\"" a= =b ==`)
	f.Add(`msg="portcullis is ready" address=https://h kubeconfig="unterminated`)
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseReadyLine(line)
		if err == nil && (!strings.HasPrefix(r.Address, "https://") || r.Kubeconfig == "") {
			t.Fatalf("accepted %q as %+v", line, r)
		}
	})
}

func TestKubectlLDFlags(t *testing.T) {
	got := kubectlLDFlags("v0.37.2")
	for _, want := range []string{
		"-X k8s.io/client-go/pkg/version.gitVersion=v1.37.2",
		"-X k8s.io/component-base/version.gitVersion=v1.37.2",
		"-X k8s.io/component-base/version.gitMajor=1",
		"-X k8s.io/component-base/version.gitMinor=37",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ldflags %q lack %q", got, want)
		}
	}
}

func TestKubectlCacheKey(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.sum", "k8s.io/kubectl v0.37.2 h1:a\n")
	write("test/kubectl/main.go", "package main\n")
	key := func(ldflags string) string {
		t.Helper()
		k, err := kubectlCacheKey(root, ldflags)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key("-s")
	if again := key("-s"); again != first {
		t.Errorf("key not stable: %s then %s", first, again)
	}
	if other := key("-w"); other == first {
		t.Errorf("key ignores ldflags")
	}
	write("go.sum", "k8s.io/kubectl v0.37.3 h1:b\n")
	if changed := key("-s"); changed == first {
		t.Errorf("key ignores go.sum")
	}
	write("go.sum", "k8s.io/kubectl v0.37.2 h1:a\n")
	write("test/kubectl/main.go", "package main // changed\n")
	if changed := key("-s"); changed == first {
		t.Errorf("key ignores test/kubectl/main.go")
	}
}

func TestServerLifecycle(t *testing.T) {
	s := Start(t, "--extra-flag")
	if !strings.HasPrefix(s.URL, "https://127.0.0.1:") {
		t.Errorf("URL = %q", s.URL)
	}
	if want := filepath.Join(s.DataDir, "admin.kubeconfig"); s.Kubeconfig != want {
		t.Errorf("Kubeconfig = %q, want %q", s.Kubeconfig, want)
	}
	if !s.Running() || s.PID() == 0 {
		t.Fatalf("not running after Start")
	}
	first := s.PID()

	s.Restart()
	if !s.Running() || s.PID() == first {
		t.Errorf("Restart did not start a new process (pid %d, was %d)", s.PID(), first)
	}

	s.Kill()
	if s.Running() || s.PID() != 0 {
		t.Errorf("still running after Kill")
	}
	s.Stop() // stopping a stopped server is a no-op

	s.Restart()
	if !s.Running() {
		t.Errorf("Restart after Kill did not start")
	}
	out := s.Output()
	for _, want := range []string{"--- start 3", "msg=starting", readyMessage} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	pid := s.PID()
	s.Stop()
	// The process must be reaped: signal 0 to a reaped pid fails.
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("process %d still exists after Stop", pid)
	}
}

func TestKubectlEnv(t *testing.T) {
	t.Setenv("KUBECONFIG", "/home/someone/.kube/config")
	t.Setenv("KUBERC", "/home/someone/.kube/kuberc")
	env := strings.Join(kubectlEnv("/tmp/home"), "\n")
	for _, bad := range []string{"KUBECONFIG=", "KUBERC=/home"} {
		if strings.Contains(env, bad) {
			t.Errorf("environment keeps %q", bad)
		}
	}
	for _, want := range []string{"HOME=/tmp/home", "KUBERC=off"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %q", want)
		}
	}
}
