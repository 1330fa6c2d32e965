package serviceaccount

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// FuzzVerify feeds arbitrary bearer tokens to the authenticator: it must
// never panic, never accept a token that is not ours, and only ever
// recognise tokens naming one of our issuers.
func FuzzVerify(f *testing.F) {
	r1, r2, _, _ := testKeys(f)
	iss, keys := newTestIssuer(f, testConfig(), r1)
	sa := Ref{Name: testSA, UID: testSAUID}
	plain, _, err := iss.Issue(Request{Namespace: testNS, ServiceAccount: sa})
	if err != nil {
		f.Fatal(err)
	}
	pod, _, err := iss.Issue(Request{Namespace: testNS, ServiceAccount: sa, Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "n1", UID: testNodUID}})
	if err != nil {
		f.Fatal(err)
	}
	legacy, err := iss.IssueLegacy(testNS, sa, "bound")
	if err != nil {
		f.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(r1.Public())
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	claims := map[string]any{"iss": testIssuer, "aud": testIssuer,
		"kubernetes.io": map[string]any{"namespace": testNS, "serviceaccount": map[string]any{"name": testSA, "uid": testSAUID}}}
	parts := strings.Split(plain, ".")
	for _, seed := range []string{
		plain, pod, legacy,
		signRaw(f, pubPEM, jose.HS256, keys.SigningKeyID, claims),
		signRaw(f, r2, jose.RS256, keys.SigningKeyID, claims),
		unsigned(`{"alg":"none"}`, `{"iss":"`+testIssuer+`"}`, ""),
		unsigned(`{"alg":"RS256","kid":"x"}`, `{"iss":"`+testIssuer+`","kubernetes.io":{"namespace":7}}`, parts[2]),
		unsigned(`{"alg":"RS256"}`, `{"iss":"`+testIssuer+`","exp":1e400}`, parts[2]),
		parts[0] + "." + parts[1] + ".",
		parts[0] + ".." + parts[2],
		"", ".", "..", "...", "a.b.c", "{}", `{"payload":"x"}`, strings.Repeat("A", 4096) + ".e30.x",
	} {
		f.Add(seed)
	}
	world := newWorld()
	world.secrets[key(testNS, "bound")].Data = map[string][]byte{"token": []byte(legacy)}
	a := newTestAuthenticator(f, testConfig(), keys, world, testNow)
	want := Username(testNS, testSA)

	f.Fuzz(func(t *testing.T, token string) {
		r, ok, err := a.Verify(t.Context(), token)
		if ok {
			if err != nil || r == nil || r.User.GetName() != want || r.User.GetUID() != string(testSAUID) {
				t.Fatalf("accepted %q as %+v (err %v)", token, r, err)
			}
			return
		}
		if err == nil {
			if iss, peeked := peekIssuer(token); peeked && (iss == testIssuer || iss == "https://old.example" || iss == LegacyIssuer) {
				t.Fatalf("token naming our issuer %q neither accepted nor rejected: %q", iss, token)
			}
		}
	})
}
