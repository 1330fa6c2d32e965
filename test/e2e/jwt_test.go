package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/internal/authn/jwt/oidctest"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

func authnConfig(iss *oidctest.Issuer, prefix string) string {
	ca := "      " + strings.ReplaceAll(strings.TrimSpace(iss.CAPEM), "\n", "\n      ")
	return fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: %s
    audiences: [portcullis]
    certificateAuthority: |
%s
  claimValidationRules:
  - expression: "claims.tier != 'banned'"
    message: banned users may not log in
  claimMappings:
    username:
      claim: sub
      prefix: "%s"
    groups:
      claim: groups
      prefix: "oidc:"
    uid:
      claim: uid
    extra:
    - key: example.com/tier
      valueExpression: claims.tier
  userValidationRules:
  - expression: "!user.username.startsWith('%ssystem:')"
    message: no system users from the issuer
`, iss.URL, ca, prefix, prefix)
}

// replaceFile writes content aside and renames it over path, as editors
// and ConfigMap volumes do: a reloading server never reads half a file.
func replaceFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestJWTAuthentication(t *testing.T) {
	t.Parallel()
	key, err := oidctest.NewRSAKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	iss := oidctest.New(t, key)
	cfgPath := filepath.Join(t.TempDir(), "authn.yaml")
	if err := os.WriteFile(cfgPath, []byte(authnConfig(iss, "oidc:")), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--authentication-config", cfgPath)
	token := func(sub, tier string, exp time.Duration) string {
		tok, err := key.Sign(map[string]any{"iss": iss.URL, "aud": "portcullis", "sub": sub, "uid": "u-" + sub, "tier": tier,
			"groups": []string{"eng"}, "iat": time.Now().Unix(), "exp": time.Now().Add(exp).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	whoami := func(tok string) (string, error) {
		out, errOut, err := s.Kubectl(t, "--kubeconfig", kubeconfigFor(t, s, tok, ""), "auth", "whoami")
		return out + errOut, err
	}

	out, err := whoami(token("alice", "gold", time.Hour))
	if err != nil {
		t.Fatalf("whoami: %v\n%s", err, out)
	}
	for _, want := range []string{"oidc:alice", "u-alice", "[oidc:eng system:authenticated]", "example.com/tier", "[gold]"} {
		if !strings.Contains(out, want) {
			t.Errorf("whoami lacks %q:\n%s", want, out)
		}
	}
	for name, tok := range map[string]string{
		"expired":          token("bob", "gold", -time.Hour),
		"claim validation": token("carol", "banned", time.Hour),
		"user validation":  token("system:admin", "gold", time.Hour),
		"garbage":          "not.a.jwt",
	} {
		if out, err := whoami(tok); err == nil || !strings.Contains(out, "Unauthorized") && !strings.Contains(out, "provide credentials") {
			t.Errorf("%s token accepted: %s", name, out)
		}
	}

	// A changed configuration file is picked up while the server runs.
	replaceFile(t, cfgPath, authnConfig(iss, "sso:"))
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, _ := whoami(token("dave", "gold", time.Hour))
		if strings.Contains(out, "sso:dave") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reload not seen: %s", out)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// An invalid file keeps the last good configuration: once the server
	// has read and refused it, the previous one still authenticates.
	replaceFile(t, cfgPath, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: [{}]\n")
	waitForMetric(t, s, `apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash=`, `status="failure"} 1`)
	if out, err := whoami(token("erin", "gold", time.Hour)); err != nil || !strings.Contains(out, "sso:erin") {
		t.Errorf("after an invalid reload: %v %s", err, out)
	}
}
