package authnconfig

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/portcullis/portcullis/internal/authn/jwt"
	"github.com/portcullis/portcullis/internal/authn/jwt/oidctest"
	"github.com/portcullis/portcullis/internal/configfile"
)

// kube-apiserver's metric test uses this ID; the hash must agree.
const (
	testAPIServerID     = "testAPIServerID"
	testAPIServerIDHash = "sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37"
)

func configFor(iss *oidctest.Issuer, prefix string, anonymous string) string {
	ca := "      " + strings.ReplaceAll(strings.TrimSpace(iss.CAPEM), "\n", "\n      ")
	return fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: %s
    certificateAuthority: |
%s
    audiences: [kubernetes]
  claimMappings:
    username:
      claim: sub
      prefix: %q
%s`, iss.URL, ca, prefix, anonymous)
}

// writeFile replaces the file the way editors and ConfigMap volumes do:
// write elsewhere, rename over.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// notApplied records the hashes of the contents that the watcher logged
// as not applied.
type notApplied struct {
	mu     sync.Mutex
	hashes []string
}

func (n *notApplied) Enabled(context.Context, slog.Level) bool { return true }
func (n *notApplied) WithAttrs([]slog.Attr) slog.Handler       { return n }
func (n *notApplied) WithGroup(string) slog.Handler            { return n }

func (n *notApplied) Handle(_ context.Context, r slog.Record) error {
	if !strings.Contains(r.Message, "not applied") {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "hash" {
			n.mu.Lock()
			n.hashes = append(n.hashes, a.Value.String())
			n.mu.Unlock()
		}
		return true
	})
	return nil
}

// count is how often content of hash was not applied.
func (n *notApplied) count(hash string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, h := range n.hashes {
		if h == hash {
			c++
		}
	}
	return c
}

func TestReload(t *testing.T) {
	k, err := oidctest.NewECKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	issA, issB, issC := oidctest.New(t, k), oidctest.New(t, k), oidctest.New(t, k)
	token := func(iss *oidctest.Issuer) string {
		tok, err := k.Sign(map[string]any{"iss": iss.URL, "aud": "kubernetes", "sub": "jane", "exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	userOf := func(a *Authenticator, iss *oidctest.Issuer) string {
		u, ok, err := a.AuthenticateToken(context.Background(), token(iss))
		switch {
		case err != nil:
			return "error: " + err.Error()
		case !ok:
			return "unrecognised"
		}
		return u.GetName()
	}

	path := filepath.Join(t.TempDir(), "authn.yaml")
	writeFile(t, path, configFor(issA, "a:", ""))
	cfg, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	rejected := &notApplied{}
	var clock atomic.Int64 // the metrics' clock, in Unix seconds
	clock.Store(1_000_000_000)
	a, err := NewAuthenticator(cfg, Options{
		APIServerID: testAPIServerID, Registerer: reg,
		Logger:       slog.New(rejected),
		Now:          func() time.Time { return time.Unix(clock.Load(), 0) },
		JWT:          jwt.Options{RetryInterval: 20 * time.Millisecond, MinRefreshInterval: time.Millisecond},
		PollInterval: 50 * time.Millisecond, UpdateTimeout: 300 * time.Millisecond, RetireAfter: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	reloads := func(status string) float64 {
		n, _ := a.metrics.Reloads(status)
		return n
	}
	info := func(hash string) string {
		return fmt.Sprintf(`# HELP apiserver_authentication_config_controller_last_config_info [ALPHA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.
# TYPE apiserver_authentication_config_controller_last_config_info gauge
apiserver_authentication_config_controller_last_config_info{apiserver_id_hash="%s",hash="%s"} 1
`, testAPIServerIDHash, hash)
	}

	eventually(t, "issuer A", func() bool { return a.HealthCheck() == nil })
	if got := userOf(a, issA); got != "a:jane" {
		t.Fatalf("A: %s", got)
	}
	if got := userOf(a, issB); got != "unrecognised" {
		t.Fatalf("B before reload: %s", got)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(info(cfg.Hash())), "apiserver_authentication_config_controller_last_config_info"); err != nil {
		t.Fatal(err)
	}

	t.Run("a valid change replaces the configuration", func(t *testing.T) {
		content := configFor(issB, "b:", "")
		clock.Store(2_000_000_000)
		writeFile(t, path, content)
		eventually(t, "issuer B", func() bool { return userOf(a, issB) == "b:jane" })
		if got := userOf(a, issA); got != "unrecognised" {
			t.Fatalf("A after reload: %s", got)
		}
		if reloads("success") != 1 || reloads("failure") != 0 {
			t.Fatalf("success=%v failure=%v", reloads("success"), reloads("failure"))
		}
		if err := testutil.GatherAndCompare(reg, strings.NewReader(info(configfile.Hash([]byte(content)))), "apiserver_authentication_config_controller_last_config_info"); err != nil {
			t.Fatal(err)
		}
		if _, last := a.metrics.Reloads("success"); !last.Equal(time.Unix(2_000_000_000, 0)) {
			t.Fatalf("last success timestamp %v, want the time of the reload", last)
		}
	})

	t.Run("an invalid file keeps the last good configuration, once", func(t *testing.T) {
		invalid := "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: [{}]\n"
		writeFile(t, path, invalid)
		eventually(t, "failure", func() bool { return reloads("failure") == 1 })
		if got := userOf(a, issB); got != "b:jane" {
			t.Fatalf("B after invalid file: %s", got)
		}
		// Unchanged content is not retried, however often it is seen: the
		// same content again, then other content; once the watcher has
		// judged the other, it has seen the same content again (and
		// polled it), and judged it only once.
		writeFile(t, path, invalid)
		other := invalid + "# edited\n"
		writeFile(t, path, other)
		eventually(t, "the edited file judged", func() bool { return rejected.count(configfile.Hash([]byte(other))) == 1 })
		if n := rejected.count(configfile.Hash([]byte(invalid))); n != 1 {
			t.Fatalf("unchanged invalid content judged %d times, want once", n)
		}
		if reloads("failure") != 2 {
			t.Fatalf("failure=%v, want 2", reloads("failure"))
		}
	})

	t.Run("the anonymous field cannot change", func(t *testing.T) {
		writeFile(t, path, configFor(issB, "b:", "anonymous: {enabled: true}\n"))
		eventually(t, "failure", func() bool { return reloads("failure") == 3 })
		if got := userOf(a, issB); got != "b:jane" {
			t.Fatalf("B: %s", got)
		}
	})

	t.Run("an unreachable issuer is retried until it answers", func(t *testing.T) {
		issC.Fail(oidctest.DiscoveryPath, http.StatusBadGateway)
		writeFile(t, path, configFor(issC, "c:", ""))
		eventually(t, "failure", func() bool { return reloads("failure") >= 4 })
		if got := userOf(a, issB); got != "b:jane" {
			t.Fatalf("B while C is down: %s", got)
		}
		issC.Fail(oidctest.DiscoveryPath, 0)
		eventually(t, "issuer C", func() bool { return userOf(a, issC) == "c:jane" })
		if reloads("success") != 2 {
			t.Fatalf("success=%v", reloads("success"))
		}
	})

	t.Run("a missing file is a failure, not a change", func(t *testing.T) {
		before := reloads("failure")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		eventually(t, "failure", func() bool { return reloads("failure") > before })
		if got := userOf(a, issC); got != "c:jane" {
			t.Fatalf("C: %s", got)
		}
	})
}

func TestReloadMetricNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, err := NewAuthenticator(nil, Options{APIServerID: testAPIServerID, Registerer: reg, Now: func() time.Time { return time.Unix(1689101941, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	a.metrics.Failure()
	a.metrics.Success("sha256:abc")
	want := `# HELP apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds [BETA] Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.
# TYPE apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds gauge
apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash="sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37",status="failure"} 1.689101941e+09
apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash="sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37",status="success"} 1.689101941e+09
# HELP apiserver_authentication_config_controller_automatic_reloads_total [BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.
# TYPE apiserver_authentication_config_controller_automatic_reloads_total counter
apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37",status="failure"} 1
apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37",status="success"} 1
# HELP apiserver_authentication_config_controller_last_config_info [ALPHA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.
# TYPE apiserver_authentication_config_controller_last_config_info gauge
apiserver_authentication_config_controller_last_config_info{apiserver_id_hash="sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37",hash="sha256:abc"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	// A second registration on the same registry shares the collectors.
	if _, err := NewAuthenticator(nil, Options{APIServerID: testAPIServerID, Registerer: reg}); err != nil {
		t.Fatal(err)
	}
}

func TestNilConfigAuthenticator(t *testing.T) {
	a, err := NewAuthenticator(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.AuthenticateToken(context.Background(), "anything"); ok || err != nil {
		t.Fatal("recognised a token without configuration")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	cancel()
	<-done
}
