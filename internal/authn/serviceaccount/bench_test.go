package serviceaccount

import (
	"crypto"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// Run: go test ./internal/authn/serviceaccount -run '^$' -bench . -benchmem

func benchKeys(b *testing.B) map[string]crypto.Signer {
	r1, _, e256, _ := testKeys(b)
	return map[string]crypto.Signer{"RS256": r1, "ES256": e256}
}

func BenchmarkIssue(b *testing.B) {
	for _, alg := range []string{"RS256", "ES256"} {
		b.Run(alg, func(b *testing.B) {
			iss, _ := newTestIssuer(b, testConfig(), benchKeys(b)[alg])
			req := Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID},
				Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "n1", UID: testNodUID}}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := iss.Issue(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify is an uncached authentication of a pod-bound token:
// signature, claims, and the service account and pod lookups (in memory).
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []string{"RS256", "ES256"} {
		b.Run(alg, func(b *testing.B) {
			iss, keys := newTestIssuer(b, testConfig(), benchKeys(b)[alg])
			tok, _, err := iss.Issue(Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID},
				Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "n1", UID: testNodUID}})
			if err != nil {
				b.Fatal(err)
			}
			a := newTestAuthenticator(b, testConfig(), keys, newWorld(), testNow)
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := a.AuthenticateToken(ctx, tok); !ok || err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifyFloor is a bare go-jose parse and verify of the same
// token: the floor BenchmarkVerify is compared with.
func BenchmarkVerifyFloor(b *testing.B) {
	for _, alg := range []string{"RS256", "ES256"} {
		b.Run(alg, func(b *testing.B) {
			key := benchKeys(b)[alg]
			iss, _ := newTestIssuer(b, testConfig(), key)
			tok, _, err := iss.Issue(Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID}})
			if err != nil {
				b.Fatal(err)
			}
			algs := []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)}
			b.ReportAllocs()
			for b.Loop() {
				jws, err := jose.ParseSignedCompact(tok, algs)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := jws.Verify(key.Public()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNotOurs is the cost of declining another issuer's token, paid
// by every JWT that reaches this authenticator first in a union.
func BenchmarkNotOurs(b *testing.B) {
	r1 := benchKeys(b)["RS256"]
	other, _ := newTestIssuer(b, Config{Issuers: []string{"https://idp.example"}}, r1)
	tok, _, err := other.Issue(Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID}})
	if err != nil {
		b.Fatal(err)
	}
	_, keys := newTestIssuer(b, testConfig(), r1)
	a := newTestAuthenticator(b, testConfig(), keys, newWorld(), testNow)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := a.AuthenticateToken(b.Context(), tok); ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
