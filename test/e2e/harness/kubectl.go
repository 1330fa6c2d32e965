package harness

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// kubectlTimeout bounds one kubectl run so a hung request fails the test
// instead of the whole test binary.
const kubectlTimeout = 60 * time.Second

// Kubectl runs kubectl against the server as the admin and returns what it
// printed. err is non-nil when kubectl exits non-zero (an *exec.ExitError).
func (s *Server) Kubectl(t testing.TB, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	// The first call of the process may build kubectl, which takes minutes
	// on a fresh checkout: that must not count against the command.
	KubectlPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := s.KubectlCommand(ctx, t, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("kubectl %s: no answer within %s", strings.Join(args, " "), kubectlTimeout)
	}
	t.Logf("kubectl %s (%s, %v)", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), exitStatus(err))
	return out.String(), errOut.String(), err
}

// MustKubectl is Kubectl for commands that are expected to succeed: any
// failure ends the test with kubectl's output.
func (s *Server) MustKubectl(t testing.TB, args ...string) string {
	t.Helper()
	stdout, stderr, err := s.Kubectl(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout
}

// KubectlCommand prepares (without starting) a kubectl run against the
// server, for commands that run in the background such as `get -w` or
// `wait`. ctx kills the process when done; a caller whose ctx has a
// deadline calls KubectlPath first, since the first call may build kubectl.
func (s *Server) KubectlCommand(ctx context.Context, t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	full := append([]string{"--kubeconfig", s.Kubeconfig, "--cache-dir", s.cacheDir}, args...)
	cmd := exec.CommandContext(ctx, KubectlPath(t), full...)
	cmd.Env = kubectlEnv(s.home)
	setProcAttr(cmd)
	return cmd
}

// kubectlEnv is the environment minus what would point kubectl at a user's
// own configuration (KUBECONFIG, ~/.kube, kuberc preferences).
func kubectlEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "KUBECONFIG", "HOME", "KUBERC", "KUBECTL_KUBERC":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "KUBERC=off")
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}
