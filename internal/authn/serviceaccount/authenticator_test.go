package serviceaccount

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

func TestAuthenticateRoundTrip(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	iss, keys := newTestIssuer(t, testConfig(), r1)
	a := newTestAuthenticator(t, testConfig(), keys, newWorld(), testNow)
	sa := Ref{Name: testSA, UID: testSAUID}
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:team-a"}
	name := "system:serviceaccount:team-a:builder"
	cred := "JTI=" + testJTI

	tests := []struct {
		name string
		req  Request
		want *user.DefaultInfo
	}{
		{"unbound", Request{}, &user.DefaultInfo{Name: name, UID: string(testSAUID), Groups: groups,
			Extra: map[string][]string{CredentialIDKey: {cred}}}},
		{"pod with node", Request{Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "n1", UID: testNodUID}},
			&user.DefaultInfo{Name: name, UID: string(testSAUID), Groups: groups, Extra: map[string][]string{
				CredentialIDKey: {cred},
				PodNameKey:      {"web-0"}, PodUIDKey: {string(testPodUID)},
				NodeNameKey: {"n1"}, NodeUIDKey: {string(testNodUID)},
			}}},
		{"pod on a node that is gone", Request{Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "gone"}},
			&user.DefaultInfo{Name: name, UID: string(testSAUID), Groups: groups, Extra: map[string][]string{
				CredentialIDKey: {cred},
				PodNameKey:      {"web-0"}, PodUIDKey: {string(testPodUID)},
				NodeNameKey: {"gone"},
			}}},
		{"secret", Request{Secret: &Ref{Name: "bound", UID: testSecUID}}, &user.DefaultInfo{Name: name, UID: string(testSAUID),
			Groups: groups, Extra: map[string][]string{CredentialIDKey: {cred}}}},
		{"node", Request{Node: &Ref{Name: "n1", UID: testNodUID}}, &user.DefaultInfo{Name: name, UID: string(testSAUID),
			Groups: groups, Extra: map[string][]string{CredentialIDKey: {cred}, NodeNameKey: {"n1"}, NodeUIDKey: {string(testNodUID)}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Namespace, req.ServiceAccount = testNS, sa
			tok, exp, err := iss.Issue(req)
			if err != nil {
				t.Fatal(err)
			}
			r, ok, err := a.Verify(t.Context(), tok)
			if !ok || err != nil {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
			if diff := cmp.Diff(tc.want, r.User); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if !r.Expiry.Equal(exp) || !equal(r.Audiences, []string{testIssuer}) {
				t.Errorf("expiry %v audiences %q, want %v %q", r.Expiry, r.Audiences, exp, []string{testIssuer})
			}
		})
	}
}

// modify returns a world changed by f.
func modify(f func(g *fakeGetter)) *fakeGetter {
	g := newWorld()
	f(g)
	return g
}

func deletedAgo(d time.Duration) *metav1.Time {
	ts := metav1.NewTime(testNow.Add(-d))
	return &ts
}

func TestAuthenticateRejects(t *testing.T) {
	r1, r2, e256, _ := testKeys(t)
	cfg := testConfig()
	iss, keys := newTestIssuer(t, cfg, r1)
	sa := Ref{Name: testSA, UID: testSAUID}
	issue := func(r Request) string {
		t.Helper()
		r.Namespace, r.ServiceAccount = testNS, sa
		tok, _, err := iss.Issue(r)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	plain := issue(Request{})
	podBound := issue(Request{Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "n1", UID: testNodUID}})
	secretBound := issue(Request{Secret: &Ref{Name: "bound", UID: testSecUID}})
	nodeBound := issue(Request{Node: &Ref{Name: "n1", UID: testNodUID}})
	vault := issue(Request{Audiences: []string{"vault"}})

	// Tokens our issuer would never sign.
	kid := keys.SigningKeyID
	claims := func(mut func(m map[string]any)) map[string]any {
		m := map[string]any{
			"iss": testIssuer, "aud": []string{testIssuer}, "sub": Username(testNS, testSA),
			"iat": testNow.Unix(), "nbf": testNow.Unix(), "exp": testNow.Add(time.Hour).Unix(),
			"kubernetes.io": map[string]any{"namespace": testNS, "serviceaccount": map[string]any{"name": testSA, "uid": testSAUID}},
		}
		if mut != nil {
			mut(m)
		}
		return m
	}
	signed := func(mut func(m map[string]any)) string { return signRaw(t, r1, jose.RS256, kid, claims(mut)) }
	pubDER, err := x509.MarshalPKIXPublicKey(r1.Public())
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	payloadOf := func(tok string) string { return strings.Split(tok, ".")[1] }
	sigOf := func(tok string) string { return strings.Split(tok, ".")[2] }
	headerOf := func(tok string) string { return strings.Split(tok, ".")[0] }
	otherIssuer := newOtherIssuer(t, r1)

	tests := []struct {
		name      string
		token     string
		world     *fakeGetter
		now       time.Time
		audiences []string // a TokenReview's spec.audiences
		wantOK    bool
		wantErr   error // nil with wantOK false: not recognised
		check     func(error) bool
	}{
		{name: "valid", token: plain, wantOK: true},
		{name: "second issuer", token: signed(func(m map[string]any) { m["iss"] = "https://old.example" }), wantOK: true},
		{name: "audience as a string", token: signed(func(m map[string]any) { m["aud"] = testIssuer }), wantOK: true},

		// Not ours: others may try.
		{name: "empty", token: ""},
		{name: "garbage", token: "not a token"},
		{name: "two parts", token: "a.b"},
		{name: "four parts", token: plain + ".x"},
		{name: "payload not base64", token: headerOf(plain) + ".!!!." + sigOf(plain)},
		{name: "payload not JSON", token: unsigned(`{"alg":"RS256"}`, `[1,2]`, "")},
		{name: "issuer not a string", token: unsigned(`{"alg":"RS256"}`, `{"iss":5}`, "")},
		{name: "other issuer", token: otherIssuer},
		{name: "unknown issuer, unsigned", token: unsigned(`{"alg":"none"}`, `{"iss":"someone"}`, "")},
		{name: "JSON serialization", token: `{"payload":"` + payloadOf(plain) + `"}.a.b`},

		// Ours but invalid.
		{name: "alg none", token: unsigned(`{"alg":"none"}`, string(decodePart(t, plain, 1)), ""), wantErr: ErrMalformedToken},
		{name: "HMAC keyed with the public key PEM", token: signRaw(t, pubPEM, jose.HS256, kid, claims(nil)), wantErr: ErrMalformedToken},
		{name: "HMAC keyed with the public key DER", token: signRaw(t, pubDER, jose.HS256, "", claims(nil)), wantErr: ErrMalformedToken},
		{name: "tampered payload", token: headerOf(plain) + "." + payloadOf(vault) + "." + sigOf(plain), wantErr: ErrInvalidSignature},
		{name: "signature cut", token: headerOf(plain) + "." + payloadOf(plain) + ".", wantErr: ErrInvalidSignature},
		{name: "signature not base64", token: headerOf(plain) + "." + payloadOf(plain) + ".***", wantErr: ErrMalformedToken},
		{name: "unknown key", token: signRaw(t, r2, jose.RS256, "", claims(nil)), wantErr: ErrInvalidSignature},
		{name: "unknown key ID", token: signRaw(t, r2, jose.RS256, "nope", claims(nil)), wantErr: ErrInvalidSignature},
		{name: "other key under our key ID", token: signRaw(t, r2, jose.RS256, kid, claims(nil)), wantErr: ErrInvalidSignature},
		{name: "ECDSA signature for an RSA key ID", token: signRaw(t, e256, jose.ES256, kid, claims(nil)), wantErr: ErrInvalidSignature},
		{name: "unsupported alg", token: unsigned(`{"alg":"EdDSA"}`, string(decodePart(t, plain, 1)), sigOf(plain)), wantErr: ErrMalformedToken},
		{name: "oversized", token: headerOf(plain) + "." + base64.RawURLEncoding.EncodeToString(
			[]byte(`{"iss":"`+testIssuer+`","pad":"`+strings.Repeat("x", 1<<20)+`"}`)) + "." + sigOf(plain), wantErr: ErrInvalidSignature},
		{name: "wrong audience", token: vault, wantErr: ErrInvalidAudience},
		{name: "audience asked for by a TokenReview", token: vault, audiences: []string{"vault"}, wantOK: true},
		{name: "audience not asked for by a TokenReview", token: plain, audiences: []string{"vault"}, wantErr: ErrInvalidAudience},
		{name: "expired", token: plain, now: testNow.Add(time.Hour + leeway + time.Second), wantErr: ErrExpired},
		{name: "expired within the leeway", token: plain, now: testNow.Add(time.Hour + leeway - time.Second), wantOK: true},
		{name: "not yet valid", token: plain, now: testNow.Add(-leeway - time.Second), wantErr: ErrNotValidYet},
		{name: "not yet valid within the leeway", token: plain, now: testNow.Add(-leeway + time.Second), wantOK: true},
		{name: "issued in the future", token: signed(func(m map[string]any) { delete(m, "nbf"); m["iat"] = testNow.Add(time.Hour).Unix() }),
			wantErr: ErrIssuedInTheFuture},
		{name: "time claim not a number", token: signed(func(m map[string]any) { m["exp"] = "soon" }), wantErr: ErrMalformedToken},
		{name: "time claim overflowing", token: signed(func(m map[string]any) { m["nbf"] = 1e300 }), wantErr: ErrMalformedToken},
		{name: "no kubernetes.io claims", token: signed(func(m map[string]any) { delete(m, "kubernetes.io") }), wantErr: ErrMissingClaims},
		{name: "kubernetes.io not an object", token: signed(func(m map[string]any) { m["kubernetes.io"] = 5 }), wantErr: ErrMalformedToken},
		{name: "audience of numbers", token: signed(func(m map[string]any) { m["aud"] = []int{1} }), wantErr: ErrMalformedToken},

		// The objects behind the token.
		{name: "service account deleted", token: plain, world: modify(func(g *fakeGetter) { delete(g.sas, key(testNS, testSA)) }),
			check: apierrors.IsNotFound},
		{name: "service account recreated", token: plain, world: modify(func(g *fakeGetter) { g.sas[key(testNS, testSA)].UID = "new" }),
			wantErr: ErrUIDMismatch},
		{name: "service account being deleted", token: plain,
			world:   modify(func(g *fakeGetter) { g.sas[key(testNS, testSA)].DeletionTimestamp = deletedAgo(2 * leeway) }),
			wantErr: ErrServiceAccountDeleted},
		{name: "service account deleted within the leeway", token: plain,
			world:  modify(func(g *fakeGetter) { g.sas[key(testNS, testSA)].DeletionTimestamp = deletedAgo(leeway / 2) }),
			wantOK: true},
		{name: "pod deleted", token: podBound, world: modify(func(g *fakeGetter) { delete(g.pods, key(testNS, "web-0")) }), wantErr: ErrInvalidated},
		{name: "pod recreated", token: podBound, world: modify(func(g *fakeGetter) { g.pods[key(testNS, "web-0")].UID = "new" }), wantErr: ErrUIDMismatch},
		{name: "pod terminating past its grace", token: podBound,
			world: modify(func(g *fakeGetter) { g.pods[key(testNS, "web-0")].DeletionTimestamp = deletedAgo(2 * leeway) }), wantErr: ErrInvalidated},
		{name: "pod terminating within the leeway", token: podBound,
			world: modify(func(g *fakeGetter) { g.pods[key(testNS, "web-0")].DeletionTimestamp = deletedAgo(leeway / 2) }), wantOK: true},
		{name: "pod's node deleted does not matter", token: podBound, world: modify(func(g *fakeGetter) { delete(g.nodes, "n1") }), wantOK: true},
		{name: "secret deleted", token: secretBound, world: modify(func(g *fakeGetter) { delete(g.secrets, key(testNS, "bound")) }), wantErr: ErrInvalidated},
		{name: "secret recreated", token: secretBound, world: modify(func(g *fakeGetter) { g.secrets[key(testNS, "bound")].UID = "new" }), wantErr: ErrUIDMismatch},
		{name: "secret being deleted", token: secretBound,
			world: modify(func(g *fakeGetter) { g.secrets[key(testNS, "bound")].DeletionTimestamp = deletedAgo(2 * leeway) }), wantErr: ErrInvalidated},
		{name: "node deleted", token: nodeBound, world: modify(func(g *fakeGetter) { delete(g.nodes, "n1") }), wantErr: ErrInvalidated},
		{name: "node recreated", token: nodeBound, world: modify(func(g *fakeGetter) { g.nodes["n1"].UID = "new" }), wantErr: ErrUIDMismatch},
		{name: "node being deleted", token: nodeBound,
			world: modify(func(g *fakeGetter) { g.nodes["n1"].DeletionTimestamp = deletedAgo(2 * leeway) }), wantErr: ErrInvalidated},
		{name: "node unreadable", token: nodeBound, world: modify(func(g *fakeGetter) { g.nodeErr = errors.New("etcd down") }), wantErr: ErrInvalidated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			world, now := tc.world, tc.now
			if world == nil {
				world = newWorld()
			}
			if now.IsZero() {
				now = testNow
			}
			a := newTestAuthenticator(t, cfg, keys, world, now)
			ctx := authn.WithAudiences(t.Context(), tc.audiences)
			u, ok, err := a.AuthenticateToken(ctx, tc.token)
			t.Logf("ok=%v err=%v", ok, err)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v (err %v)", ok, tc.wantOK, err)
			}
			switch {
			case tc.wantOK:
				if err != nil || u == nil {
					t.Fatalf("accepted with err %v, user %v", err, u)
				}
			case tc.check != nil:
				if !tc.check(err) {
					t.Fatalf("err = %v", err)
				}
			case tc.wantErr == nil:
				if err != nil {
					t.Fatalf("a token that is not ours gave err %v, want none", err)
				}
			default:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			}
		})
	}
}

// newOtherIssuer signs with our key for an issuer we do not accept, as
// another cluster sharing a key would.
func newOtherIssuer(t *testing.T, key crypto.Signer) string {
	t.Helper()
	other, _ := newTestIssuer(t, Config{Issuers: []string{"https://elsewhere"}}, key)
	tok, _, err := other.Issue(Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID}})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestAuthenticateKeyRotation(t *testing.T) {
	r1, r2, e256, _ := testKeys(t)
	oldIssuer, _ := newTestIssuer(t, testConfig(), r2)
	old, _, err := oldIssuer.Issue(Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID}})
	if err != nil {
		t.Fatal(err)
	}
	noKID := signRaw(t, r2, jose.RS256, "", map[string]any{
		"iss": testIssuer, "aud": testIssuer, "exp": testNow.Add(time.Hour).Unix(),
		"kubernetes.io": map[string]any{"namespace": testNS, "serviceaccount": map[string]any{"name": testSA, "uid": testSAUID}},
	})
	tests := []struct {
		name   string
		verify []crypto.PublicKey
		token  string
		wantOK bool
	}{
		{"old key still listed", []crypto.PublicKey{r2.Public(), e256.Public()}, old, true},
		{"old key dropped", []crypto.PublicKey{e256.Public()}, old, false},
		{"no key ID tries every key", []crypto.PublicKey{e256.Public(), r2.Public()}, noKID, true},
		{"no key ID and no matching key", []crypto.PublicKey{e256.Public()}, noKID, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := NewKeys(r1, tc.verify...)
			if err != nil {
				t.Fatal(err)
			}
			a := newTestAuthenticator(t, testConfig(), keys, newWorld(), testNow)
			_, ok, err := a.AuthenticateToken(t.Context(), tc.token)
			if ok != tc.wantOK || (!ok && !errors.Is(err, ErrInvalidSignature)) {
				t.Errorf("ok=%v err=%v, want ok=%v", ok, err, tc.wantOK)
			}
		})
	}
}

func TestAuthenticateLegacy(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	iss, keys := newTestIssuer(t, testConfig(), r1)
	sa := Ref{Name: testSA, UID: testSAUID}
	tok, err := iss.IssueLegacy(testNS, sa, "builder-token")
	if err != nil {
		t.Fatal(err)
	}
	withSecret := func(f func(s *corev1.Secret)) *fakeGetter {
		return modify(func(g *fakeGetter) {
			s := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "builder-token", UID: "s1",
					Annotations: map[string]string{corev1.ServiceAccountNameKey: testSA, corev1.ServiceAccountUIDKey: string(testSAUID)}},
				Type: corev1.SecretTypeServiceAccountToken,
				Data: map[string][]byte{corev1.ServiceAccountTokenKey: []byte(tok)},
			}
			if f != nil {
				f(s)
			}
			g.secrets[key(testNS, "builder-token")] = s
		})
	}
	legacyClaimsToken := func(mut func(m map[string]any)) string {
		m := map[string]any{
			"iss": LegacyIssuer, "sub": Username(testNS, testSA),
			"kubernetes.io/serviceaccount/namespace": testNS, "kubernetes.io/serviceaccount/secret.name": "builder-token",
			"kubernetes.io/serviceaccount/service-account.name": testSA, "kubernetes.io/serviceaccount/service-account.uid": testSAUID,
		}
		mut(m)
		return signRaw(t, r1, jose.RS256, keys.SigningKeyID, m)
	}
	tests := []struct {
		name      string
		cfg       func(*Config)
		token     string
		world     *fakeGetter
		audiences []string
		wantOK    bool
		wantErr   error
		check     func(error) bool
	}{
		{name: "valid", world: withSecret(nil), wantOK: true},
		{name: "not recognised when legacy tokens are off", cfg: func(c *Config) { c.Legacy = false }, world: withSecret(nil)},
		{name: "secret deleted", world: newWorld(), wantErr: ErrInvalidated},
		{name: "secret being deleted", world: withSecret(func(s *corev1.Secret) { s.DeletionTimestamp = deletedAgo(0) }), wantErr: ErrInvalidated},
		{name: "secret holds another token", world: withSecret(func(s *corev1.Secret) { s.Data["token"] = []byte("other") }), wantErr: ErrLegacyTokenMismatch},
		{name: "secret marked invalid", world: withSecret(func(s *corev1.Secret) {
			s.Labels = map[string]string{LegacyInvalidSinceLabel: "2026-01-01"}
		}), wantErr: ErrLegacyTokenInvalid},
		{name: "service account deleted", world: modify(func(g *fakeGetter) {
			*g = *withSecret(nil)
			delete(g.sas, key(testNS, testSA))
		}), check: apierrors.IsNotFound},
		{name: "service account recreated", world: modify(func(g *fakeGetter) {
			*g = *withSecret(nil)
			g.sas[key(testNS, testSA)].UID = "new"
		}), wantErr: ErrUIDMismatch},
		{name: "service account being deleted", world: modify(func(g *fakeGetter) {
			*g = *withSecret(nil)
			g.sas[key(testNS, testSA)].DeletionTimestamp = deletedAgo(0)
		}), wantErr: ErrServiceAccountDeleted},
		{name: "audience a TokenReview asks for", world: withSecret(nil), audiences: []string{"vault"}, wantErr: ErrInvalidAudience},
		{name: "missing secret name", token: legacyClaimsToken(func(m map[string]any) { delete(m, "kubernetes.io/serviceaccount/secret.name") }),
			world: withSecret(nil), wantErr: ErrMissingClaims},
		{name: "subject of another account", token: legacyClaimsToken(func(m map[string]any) { m["sub"] = Username(testNS, "other") }),
			world: withSecret(nil), wantErr: ErrMissingClaims},
		{name: "invalid namespace in claims", token: legacyClaimsToken(func(m map[string]any) {
			m["kubernetes.io/serviceaccount/namespace"] = "Bad_NS"
			m["sub"] = Username("Bad_NS", testSA)
		}), world: withSecret(nil), wantErr: ErrMissingClaims},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			token := tc.token
			if token == "" {
				token = tok
			}
			a := newTestAuthenticator(t, cfg, keys, tc.world, testNow)
			r, ok, err := a.Verify(authn.WithAudiences(t.Context(), tc.audiences), token)
			t.Logf("ok=%v err=%v", ok, err)
			switch {
			case ok != tc.wantOK:
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			case tc.wantOK:
				want := &user.DefaultInfo{Name: Username(testNS, testSA), UID: string(testSAUID),
					Groups: []string{AllServiceAccounts, NamespaceGroupPrefix + testNS}}
				if diff := cmp.Diff(want, r.User); diff != "" || !r.Expiry.IsZero() {
					t.Errorf("user (-want +got):\n%s expiry %v", diff, r.Expiry)
				}
			case tc.check != nil:
				if !tc.check(err) {
					t.Errorf("err = %v", err)
				}
			case tc.wantErr == nil:
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
			case !errors.Is(err, tc.wantErr):
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
