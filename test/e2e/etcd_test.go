package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/internal/storage/etcd/etcdtest"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// health GETs a verbose health endpoint and returns its status and body.
func health(c *http.Client, s *harness.Server, endpoint string) (int, string, error) {
	resp, err := c.Get(s.URL + endpoint + "?verbose")
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// waitHealth waits until endpoint answers status with every one of lines,
// and logs how long after since that was.
func waitHealth(t *testing.T, s *harness.Server, since time.Time, endpoint string, status int, lines ...string) {
	t.Helper()
	c := s.HTTPClient(t)
	c.Timeout = 30 * time.Second
	what := fmt.Sprintf("%s %d with %q", endpoint, status, lines)
	lag := waitFor(t, what, time.Minute, since, func() error {
		code, body, err := health(c, s, endpoint)
		if err != nil {
			return err
		}
		if code != status || !containsAll(body, lines) {
			return fmt.Errorf("%d:\n%s", code, body)
		}
		return nil
	})
	t.Logf("%s after %s", what, lag.Round(time.Millisecond))
}

func TestEtcdServe(t *testing.T) {
	t.Parallel()

	t.Run("health follows etcd", func(t *testing.T) {
		t.Parallel()
		cluster := etcdtest.Start(t, etcdtest.Options{})
		s := harness.Start(t, etcdFlag(cluster))
		out := s.MustKubectl(t, "get", "--raw", "/readyz?verbose")
		for _, want := range []string{"[+]etcd ok", "[+]etcd-readiness ok"} {
			if !strings.Contains(out, want) {
				t.Errorf("/readyz?verbose lacks %q:\n%s", want, out)
			}
		}

		cluster.StopMember(0)
		stopped := time.Now()
		waitHealth(t, s, stopped, "/livez", http.StatusInternalServerError, "[-]etcd failed")
		waitHealth(t, s, stopped, "/readyz", http.StatusInternalServerError, "[-]etcd failed", "[-]etcd-readiness failed")

		cluster.RestartMember(0)
		restarted := time.Now()
		waitHealth(t, s, restarted, "/livez", http.StatusOK, "[+]etcd ok")
		waitHealth(t, s, restarted, "/readyz", http.StatusOK, "[+]etcd ok", "[+]etcd-readiness ok")
		s.MustKubectl(t, "create", "configmap", "after-restart")
	})

	t.Run("no etcd", func(t *testing.T) {
		t.Parallel()
		// A port nothing listens on: taken and released.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, harness.BuildPortcullis(t), "serve", "--data-dir", t.TempDir(),
			"--secure-port", "0", "--bind-address", "127.0.0.1", "--etcd-servers=http://"+addr)
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("serve without etcd still ran after 2 minutes:\n%s", out)
		}
		if err == nil {
			t.Fatalf("serve without etcd exited 0:\n%s", out)
		}
		if !strings.Contains(string(out), "--etcd-servers") || !strings.Contains(string(out), addr) {
			t.Errorf("serve without etcd: %v, output does not name --etcd-servers and %s:\n%s", err, addr, out)
		}
		t.Logf("serve without etcd: %v\n%s", err, out)
	})

	t.Run("tls", func(t *testing.T) {
		t.Parallel()
		cluster := etcdtest.Start(t, etcdtest.Options{TLS: true})
		certs := cluster.Certs()
		s := harness.Start(t, etcdFlag(cluster),
			"--etcd-cafile="+certs.CAFile, "--etcd-certfile="+certs.ClientCertFile, "--etcd-keyfile="+certs.ClientKeyFile)
		out := s.MustKubectl(t, "get", "--raw", "/readyz?verbose")
		if !strings.Contains(out, "[+]etcd ok") || !strings.Contains(out, "[+]etcd-readiness ok") {
			t.Errorf("/readyz?verbose on a TLS etcd:\n%s", out)
		}
		s.MustKubectl(t, "create", "configmap", "over-tls", "--from-literal=k=v")
		// The object is in etcd under kube-apiserver's key.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := cluster.Client(t).Get(ctx, "/registry/configmaps/default/over-tls")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Kvs) != 1 || !strings.Contains(string(res.Kvs[0].Value), "over-tls") {
			t.Errorf("etcd key /registry/configmaps/default/over-tls: %v", res.Kvs)
		}

		// Without a client certificate etcd refuses the connection, and
		// serve says which flag it concerns.
		ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel2()
		cmd := exec.CommandContext(ctx2, harness.BuildPortcullis(t), "serve", "--data-dir", t.TempDir(),
			"--secure-port", "0", "--bind-address", "127.0.0.1", etcdFlag(cluster), "--etcd-cafile="+certs.CAFile)
		failed, err := cmd.CombinedOutput()
		if err == nil || ctx2.Err() != nil || !strings.Contains(string(failed), "--etcd-servers") {
			t.Errorf("serve on a TLS etcd without a client certificate: %v\n%s", err, failed)
		}
	})
}
