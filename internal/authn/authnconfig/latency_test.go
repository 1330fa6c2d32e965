package authnconfig

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/authn/jwt"
	"github.com/portcullis/portcullis/internal/authn/jwt/oidctest"
)

// TestJWTLatencyMetric: one observation per token an issuer recognised,
// by result and issuer hash, as kube-apiserver's
// apiserver_authentication_jwt_authenticator_latency_seconds; tokens of
// other issuers are not observed.
func TestJWTLatencyMetric(t *testing.T) {
	k, err := oidctest.NewECKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	iss := oidctest.New(t, k)
	path := filepath.Join(t.TempDir(), "authn.yaml")
	writeFile(t, path, configFor(iss, "", ""))
	cfg, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	a, err := NewAuthenticator(cfg, Options{APIServerID: testAPIServerID, Registerer: reg,
		JWT: jwt.Options{RetryInterval: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, "issuer", func() bool { return a.HealthCheck() == nil })

	sign := func(claims map[string]any) string {
		tok, err := k.Sign(claims)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	exp := time.Now().Add(time.Hour).Unix()
	for _, tok := range []string{
		sign(map[string]any{"iss": iss.URL, "aud": "kubernetes", "sub": "jane", "exp": exp}),
		sign(map[string]any{"iss": iss.URL, "aud": "kubernetes", "sub": "jane", "exp": time.Now().Add(-time.Hour).Unix()}),
		sign(map[string]any{"iss": iss.URL, "aud": "other", "sub": "jane", "exp": exp}),
		sign(map[string]any{"iss": "https://elsewhere.example.com", "aud": "kubernetes", "sub": "jane", "exp": exp}),
	} {
		_, _, _ = a.AuthenticateToken(context.Background(), tok)
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != "apiserver_authentication_jwt_authenticator_latency_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["result"]+" "+labels["jwt_issuer_hash"]] = m.GetHistogram().GetSampleCount()
		}
	}
	hash := fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(iss.URL)))
	want := map[string]uint64{"success " + hash: 1, "failure " + hash: 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
