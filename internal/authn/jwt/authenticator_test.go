package jwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authn/jwt/oidctest"
)

// live starts an authenticator against a real issuer and stops it when
// the test ends.
func live(t *testing.T, cfg apiserverv1.JWTAuthenticator, opts Options) *Authenticator {
	t.Helper()
	c, errs := Compile(cfg, field.NewPath("jwt").Index(0), nil)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs.ToAggregate())
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	a, err := New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

// otherCA is a self-signed CA that did not sign the issuer's certificate.
func otherCA(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func issuerConfig(iss *oidctest.Issuer) apiserverv1.JWTAuthenticator {
	cfg := baseConfig()
	cfg.Issuer.URL = iss.URL
	cfg.Issuer.CertificateAuthority = iss.CAPEM
	return cfg
}

func liveClaims(iss string, extra map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{"iss": iss, "aud": "my-app", "sub": "jane",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func waitReady(t *testing.T, a *Authenticator) {
	t.Helper()
	select {
	case <-a.Ready():
	case <-time.After(10 * time.Second):
		t.Fatalf("not ready: %v", a.HealthCheck())
	}
}

// eventually waits for cond, failing the test with what's message if it
// does not hold within 10 seconds.
func eventually(t *testing.T, what func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// healthSays waits until the health check of a mentions text.
func healthSays(t *testing.T, a *Authenticator, text string) {
	t.Helper()
	eventually(t, func() string { return fmt.Sprintf("health %v, want it to mention %q", a.HealthCheck(), text) },
		func() bool { return strings.Contains(fmt.Sprint(a.HealthCheck()), text) })
}

// authenticateUnblocked authenticates tok and fails the test if that does
// not return within 10 seconds: the caller has made sure that the only
// way to block is to wait for an issuer that will not answer.
func authenticateUnblocked(t *testing.T, ctx context.Context, a *Authenticator, tok string) (bool, error) {
	t.Helper()
	type result struct {
		ok  bool
		err error
	}
	done := make(chan result, 1)
	go func() {
		_, ok, err := a.AuthenticateToken(ctx, tok)
		done <- result{ok, err}
	}()
	select {
	case r := <-done:
		return r.ok, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("AuthenticateToken waits for an issuer that does not answer")
		return false, nil
	}
}

func TestLiveIssuer(t *testing.T) {
	rsa1, ec1 := key(t, "rsa-1"), key(t, "ec-1")
	iss := oidctest.New(t, rsa1, ec1)
	// No Client: the authenticator builds its own from certificateAuthority.
	a := live(t, issuerConfig(iss), Options{})
	waitReady(t, a)
	for _, k := range []*oidctest.Key{rsa1, ec1} {
		t.Run(string(k.Alg), func(t *testing.T) {
			u, ok, err := a.AuthenticateToken(context.Background(), sign(t, k, liveClaims(iss.URL, nil)))
			if err != nil || !ok || u.GetName() != "jane" {
				t.Fatalf("got %v %v %v", u, ok, err)
			}
		})
	}
	t.Run("another issuer is not recognised", func(t *testing.T) {
		_, ok, err := a.AuthenticateToken(context.Background(), sign(t, rsa1, liveClaims("https://other.example.com", nil)))
		if ok || err != nil {
			t.Fatalf("got ok=%v err=%v", ok, err)
		}
	})
}

func TestWrongCertificateAuthority(t *testing.T) {
	iss := oidctest.New(t, key(t, "rsa-1"))
	cfg := issuerConfig(iss)
	cfg.Issuer.CertificateAuthority = otherCA(t)
	a := live(t, cfg, Options{RetryInterval: time.Hour})
	eventually(t, func() string { return fmt.Sprintf("health %v, want a certificate error", a.HealthCheck()) }, func() bool {
		err := a.HealthCheck()
		var uae x509.UnknownAuthorityError
		return errors.As(err, &uae) || (err != nil && strings.Contains(err.Error(), "certificate"))
	})
}

func TestKeyRotation(t *testing.T) {
	rsa1, rsa2, ec2 := key(t, "rsa-1"), key(t, "rsa-2"), key(t, "ec-2")
	iss := oidctest.New(t, rsa1)
	a := live(t, issuerConfig(iss), Options{Client: iss.Client(), MinRefreshInterval: time.Millisecond})
	waitReady(t, a)
	ctx := context.Background()

	// The issuer rotates: new keys appear, the old one goes.
	iss.SetKeys(rsa2, ec2)
	time.Sleep(2 * time.Millisecond)
	for _, k := range []*oidctest.Key{rsa2, ec2} {
		if _, ok, err := a.AuthenticateToken(ctx, sign(t, k, liveClaims(iss.URL, nil))); !ok || err != nil {
			t.Fatalf("%s after rotation: ok=%v err=%v", k.KID, ok, err)
		}
	}
	// The withdrawn key is gone from the refreshed set.
	_, ok, err := a.AuthenticateToken(ctx, sign(t, rsa1, liveClaims(iss.URL, nil)))
	if ok || !errors.Is(err, ErrSignature) {
		t.Fatalf("withdrawn key: ok=%v err=%v", ok, err)
	}
}

func TestUnknownKeyRefetchIsSpaced(t *testing.T) {
	rsa1 := key(t, "rsa-1")
	iss := oidctest.New(t, rsa1)
	a := live(t, issuerConfig(iss), Options{Client: iss.Client(), MinRefreshInterval: time.Hour})
	waitReady(t, a)
	before := iss.Hits(oidctest.JWKSPath)
	stranger := *key(t, "rsa-2")
	for i := range 50 {
		stranger.KID = fmt.Sprintf("made-up-%d", i)
		_, ok, err := a.AuthenticateToken(context.Background(), sign(t, &stranger, liveClaims(iss.URL, nil)))
		if ok || !errors.Is(err, ErrSignature) {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
	}
	if got := iss.Hits(oidctest.JWKSPath) - before; got != 0 {
		t.Fatalf("made-up key IDs caused %d key set fetches within the refresh interval", got)
	}
}

func TestIssuerDownAtStartup(t *testing.T) {
	rsa1 := key(t, "rsa-1")
	iss := oidctest.New(t, rsa1)
	iss.Fail(oidctest.DiscoveryPath, http.StatusServiceUnavailable)
	// A long retry interval: recovery must come from the token-driven kick.
	a := live(t, issuerConfig(iss), Options{Client: iss.Client(), RetryInterval: time.Hour, MinRefreshInterval: time.Millisecond})
	tok := sign(t, rsa1, liveClaims(iss.URL, nil))

	healthSays(t, a, "503")
	_, ok, err := a.AuthenticateToken(context.Background(), tok)
	if ok || !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("while down: ok=%v err=%v", ok, err)
	}

	iss.Fail(oidctest.DiscoveryPath, 0)
	eventually(t, func() string { return fmt.Sprintf("after recovery: ok=%v err=%v", ok, err) }, func() bool {
		_, ok, err = a.AuthenticateToken(context.Background(), tok)
		if !ok && !errors.Is(err, ErrNotReady) {
			t.Fatalf("after recovery: ok=%v err=%v", ok, err)
		}
		return ok
	})
	if a.HealthCheck() != nil {
		t.Fatal(a.HealthCheck())
	}
}

// TestSlowIssuerNeverHangs: a token never waits for an issuer longer than
// the fetch timeout or the request's own deadline, and not at all before
// the issuer has answered once.
func TestSlowIssuerNeverHangs(t *testing.T) {
	rsa1, rsa2 := key(t, "rsa-1"), key(t, "rsa-2")
	t.Run("discovery in flight", func(t *testing.T) {
		iss := oidctest.New(t, rsa1)
		iss.Delay(oidctest.DiscoveryPath, time.Hour)
		a := live(t, issuerConfig(iss), Options{Client: iss.Client(), FetchTimeout: time.Hour, RetryInterval: time.Hour})
		eventually(t, func() string { return "the issuer never got the discovery request" },
			func() bool { return iss.Hits(oidctest.DiscoveryPath) > 0 })
		// The discovery request hangs for an hour: a token that waited for
		// it would not return.
		ok, err := authenticateUnblocked(t, context.Background(), a, sign(t, rsa1, liveClaims(iss.URL, nil)))
		if ok || !errors.Is(err, ErrNotReady) {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
	})
	t.Run("discovery times out", func(t *testing.T) {
		iss := oidctest.New(t, rsa1)
		iss.Delay(oidctest.DiscoveryPath, time.Minute)
		a := live(t, issuerConfig(iss), Options{Client: iss.Client(), FetchTimeout: 100 * time.Millisecond, RetryInterval: time.Hour})
		healthSays(t, a, "deadline")
	})
	t.Run("slow key set during rotation", func(t *testing.T) {
		iss := oidctest.New(t, rsa1)
		a := live(t, issuerConfig(iss), Options{Client: iss.Client(), FetchTimeout: 100 * time.Millisecond, MinRefreshInterval: time.Millisecond})
		waitReady(t, a)
		iss.Delay(oidctest.JWKSPath, time.Hour)
		time.Sleep(2 * time.Millisecond) // past MinRefreshInterval: the unknown key refetches
		// The key set hangs for an hour; only the fetch timeout ends the wait.
		ok, err := authenticateUnblocked(t, context.Background(), a, sign(t, rsa2, liveClaims(iss.URL, nil)))
		if ok || !errors.Is(err, ErrSignature) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ok=%v err=%v, want a signature error ended by the fetch timeout", ok, err)
		}
		// Tokens of the known key keep working.
		if _, ok, err := a.AuthenticateToken(context.Background(), sign(t, rsa1, liveClaims(iss.URL, nil))); !ok {
			t.Fatal(err)
		}
	})
	t.Run("request deadline bounds the wait", func(t *testing.T) {
		iss := oidctest.New(t, rsa1)
		a := live(t, issuerConfig(iss), Options{Client: iss.Client(), FetchTimeout: time.Hour, MinRefreshInterval: time.Millisecond})
		waitReady(t, a)
		iss.Delay(oidctest.JWKSPath, time.Hour)
		time.Sleep(2 * time.Millisecond) // past MinRefreshInterval: the unknown key refetches
		// The key set and the fetch timeout are an hour away; only the
		// request's deadline ends the wait.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		ok, err := authenticateUnblocked(t, ctx, a, sign(t, rsa2, liveClaims(iss.URL, nil)))
		if ok || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ok=%v err=%v, want the request's deadline", ok, err)
		}
	})
}

func TestFailingKeySetKeepsOldKeys(t *testing.T) {
	rsa1, rsa2 := key(t, "rsa-1"), key(t, "rsa-2")
	iss := oidctest.New(t, rsa1)
	a := live(t, issuerConfig(iss), Options{Client: iss.Client(), MinRefreshInterval: time.Millisecond})
	waitReady(t, a)
	iss.Fail(oidctest.JWKSPath, http.StatusInternalServerError)
	time.Sleep(2 * time.Millisecond)
	_, ok, err := a.AuthenticateToken(context.Background(), sign(t, rsa2, liveClaims(iss.URL, nil)))
	if ok || !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "500") {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	if _, ok, err := a.AuthenticateToken(context.Background(), sign(t, rsa1, liveClaims(iss.URL, nil))); !ok {
		t.Fatal(err)
	}
}

func TestDiscovery(t *testing.T) {
	rsa1 := key(t, "rsa-1")
	t.Run("discoveryURL serves another issuer's document", func(t *testing.T) {
		iss := oidctest.New(t, rsa1)
		const external = "https://oidc.example.com"
		iss.SetDiscoveryIssuer(external)
		cfg := issuerConfig(iss)
		cfg.Issuer.URL = external
		cfg.Issuer.DiscoveryURL = ptr(iss.URL + oidctest.DiscoveryPath)
		a := live(t, cfg, Options{Client: iss.Client()})
		waitReady(t, a)
		u, ok, err := a.AuthenticateToken(context.Background(), sign(t, rsa1, liveClaims(external, nil)))
		if !ok || err != nil || u.GetName() != "jane" {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
	})
	t.Run("discovered issuer must match", func(t *testing.T) {
		iss := oidctest.New(t, rsa1)
		iss.SetDiscoveryIssuer("https://impostor.example.com")
		a := live(t, issuerConfig(iss), Options{Client: iss.Client(), RetryInterval: time.Hour})
		healthSays(t, a, "issuer did not match")
	})
}

func TestDistributedClaims(t *testing.T) {
	rsa1 := key(t, "rsa-1")
	iss := oidctest.New(t, rsa1)
	var claimJWT string
	iss.Handle("/groups", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer access-1" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, claimJWT)
	}))
	cfg := issuerConfig(iss)
	cfg.ClaimMappings.Groups = apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("")}
	a := live(t, cfg, Options{Client: iss.Client()})
	waitReady(t, a)
	distributed := func(token string) map[string]any {
		return liveClaims(iss.URL, map[string]any{
			"_claim_names":   map[string]any{"groups": "src1"},
			"_claim_sources": map[string]any{"src1": map[string]any{"endpoint": iss.URL + "/groups", "access_token": token}},
		})
	}

	claimJWT = sign(t, rsa1, liveClaims(iss.URL, map[string]any{"groups": []string{"team-a", "team-b"}}))
	u, ok, err := a.AuthenticateToken(context.Background(), sign(t, rsa1, distributed("access-1")))
	if !ok || err != nil || strings.Join(u.GetGroups(), ",") != "team-a,team-b" {
		t.Fatalf("got %v ok=%v err=%v", u, ok, err)
	}

	_, ok, err = a.AuthenticateToken(context.Background(), sign(t, rsa1, distributed("wrong")))
	if ok || !errors.Is(err, ErrDistributedClaims) {
		t.Fatalf("endpoint refusing: ok=%v err=%v", ok, err)
	}

	claimJWT = sign(t, rsa1, liveClaims("https://elsewhere.example.com", map[string]any{"groups": []string{"x"}}))
	_, ok, err = a.AuthenticateToken(context.Background(), sign(t, rsa1, distributed("access-1")))
	if ok || !errors.Is(err, ErrDistributedClaims) {
		t.Fatalf("foreign issuer: ok=%v err=%v", ok, err)
	}
}

// rawToken assembles a compact JWS from parts, for tokens no honest
// signer would produce.
func rawToken(header, payload any, sig []byte) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(payload) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestBadTokens: every malformed, forged or out-of-date token of a
// configured issuer is an error, never a success, a panic or a hang.
func TestBadTokens(t *testing.T) {
	rsa1, rsa2, ec1 := key(t, "rsa-1"), key(t, "rsa-2"), key(t, "ec-1")
	a := offline(t, baseConfig(), rsa1, ec1)
	good := claimsFor(nil)

	pubDER, err := x509.MarshalPKIXPublicKey(rsa1.Private.Public())
	if err != nil {
		t.Fatal(err)
	}
	hmacToken := func() string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","kid":"rsa-1","typ":"JWT"}`))
		p, _ := json.Marshal(good)
		signing := h + "." + base64.RawURLEncoding.EncodeToString(p)
		m := hmac.New(sha256.New, pubDER)
		m.Write([]byte(signing))
		return signing + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}()
	forgedKID := *rsa2
	forgedKID.KID = "rsa-1"
	tampered := func() string {
		tok := sign(t, rsa1, good)
		parts := strings.Split(tok, ".")
		c := claimsFor(map[string]any{"sub": "admin"})
		b, _ := json.Marshal(c)
		parts[1] = base64.RawURLEncoding.EncodeToString(b)
		return strings.Join(parts, ".")
	}()

	tests := []struct {
		name    string
		token   string
		wantErr error // nil: not recognised
	}{
		{"alg none", rawToken(map[string]string{"alg": "none"}, good, nil), ErrSignature},
		{"alg None", rawToken(map[string]string{"alg": "None"}, good, nil), ErrSignature},
		{"HMAC signed with the public key", hmacToken, ErrSignature},
		{"signed by another key claiming the kid", sign(t, &forgedKID, good), ErrSignature},
		{"tampered payload", tampered, ErrSignature},
		{"garbage signature", rawToken(map[string]string{"alg": "RS256", "kid": "rsa-1"}, good, []byte("nope")), ErrSignature},
		{"wrong audience", sign(t, rsa1, claimsFor(map[string]any{"aud": "other-app"})), ErrAudience},
		{"no audience", sign(t, rsa1, claimsFor(map[string]any{"aud": del})), ErrAudience},
		{"audience of the wrong type", sign(t, rsa1, claimsFor(map[string]any{"aud": 7})), ErrMalformed},
		{"expired", sign(t, rsa1, claimsFor(map[string]any{"exp": testNow.Add(-time.Second).Unix()})), ErrExpired},
		{"no exp", sign(t, rsa1, claimsFor(map[string]any{"exp": del})), ErrExpired},
		{"exp not a number", sign(t, rsa1, claimsFor(map[string]any{"exp": "tomorrow"})), ErrMalformed},
		{"exp huge", sign(t, rsa1, claimsFor(map[string]any{"exp": 1e300})), ErrMalformed},
		{"not yet valid", sign(t, rsa1, claimsFor(map[string]any{"nbf": testNow.Add(time.Hour).Unix()})), ErrNotYetValid},
		{"not yet valid beyond the leeway", sign(t, rsa1, claimsFor(map[string]any{"nbf": testNow.Add(2 * time.Minute).Unix()})), ErrNotYetValid},
		{"payload not an object", rawToken(map[string]string{"alg": "RS256"}, []int{1}, []byte("x")), nil},
		{"header not base64", "eyJ!!!." + strings.Split(sign(t, rsa1, good), ".")[1] + ".sig", ErrMalformed},
		{"oversized", rawToken(map[string]string{"alg": "RS256"}, map[string]any{"iss": testIssuer, "pad": strings.Repeat("a", DefaultMaxTokenSize)}, nil), ErrTokenTooLarge},
		{"wrong issuer is not recognised", sign(t, rsa1, claimsFor(map[string]any{"iss": "https://evil.example.com"})), nil},
		{"no issuer is not recognised", sign(t, rsa1, claimsFor(map[string]any{"iss": del})), nil},
		{"JSON serialization is not recognised", `{"payload":"x","signatures":[]}`, nil},
		{"opaque token is not recognised", "31ada4fd-adec-460c-809a-9e56ceb75269", nil},
		{"two dots only", "..", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok, err := a.AuthenticateToken(context.Background(), tt.token)
			if ok || u != nil {
				t.Fatalf("accepted: %v", u)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("want not recognised, got %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestLeeway(t *testing.T) {
	k := key(t, "ec-1")
	a := offline(t, baseConfig(), k)
	// kube-apiserver's verifier allows nbf a minute ahead and never looks
	// at iat.
	tok := sign(t, k, claimsFor(map[string]any{"nbf": testNow.Add(50 * time.Second).Unix(), "iat": testNow.Add(time.Hour).Unix()}))
	if _, ok, err := a.AuthenticateToken(context.Background(), tok); !ok {
		t.Fatalf("nbf within the leeway, iat in the future: %v", err)
	}
}

func TestSetRouting(t *testing.T) {
	k := key(t, "ec-1")
	cfgA, cfgB := baseConfig(), baseConfig()
	cfgB.Issuer.URL = "https://b.example.com"
	cfgB.ClaimMappings.Username.Prefix = ptr("b:")
	a, b := offline(t, cfgA, k), offline(t, cfgB, k)
	set, err := NewSet(a, b)
	if err != nil {
		t.Fatal(err)
	}
	u, ok, err := set.AuthenticateToken(context.Background(), sign(t, k, claimsFor(map[string]any{"iss": "https://b.example.com"})))
	if !ok || err != nil || u.GetName() != "b:jane" {
		t.Fatalf("got %v %v %v", u, ok, err)
	}
	if _, err := NewSet(a, a); err == nil {
		t.Fatal("duplicate issuer accepted")
	}
	empty, _ := NewSet()
	if _, ok, err := empty.AuthenticateToken(context.Background(), "x"); ok || err != nil {
		t.Fatal("empty set recognised a token")
	}
	if set.HealthCheck() != nil {
		t.Fatal(set.HealthCheck())
	}
}
