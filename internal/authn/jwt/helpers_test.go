package jwt

import (
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authn/jwt/oidctest"
)

// Keys are generated once per test binary: RSA generation is slow.
var testKeys = sync.OnceValues(func() (map[string]*oidctest.Key, error) {
	out := map[string]*oidctest.Key{}
	for _, kid := range []string{"rsa-1", "rsa-2"} {
		k, err := oidctest.NewRSAKey(kid)
		if err != nil {
			return nil, err
		}
		out[kid] = k
	}
	for _, kid := range []string{"ec-1", "ec-2"} {
		k, err := oidctest.NewECKey(kid)
		if err != nil {
			return nil, err
		}
		out[kid] = k
	}
	return out, nil
})

func key(t testing.TB, kid string) *oidctest.Key {
	t.Helper()
	keys, err := testKeys()
	if err != nil {
		t.Fatal(err)
	}
	return keys[kid]
}

const testIssuer = "https://issuer.example.com"

// testNow is the fixed clock of the unit tests.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// baseConfig is a minimal valid configuration for testIssuer.
func baseConfig() apiserverv1.JWTAuthenticator {
	return apiserverv1.JWTAuthenticator{
		Issuer: apiserverv1.Issuer{URL: testIssuer, Audiences: []string{"my-app"}},
		ClaimMappings: apiserverv1.ClaimMappings{
			Username: apiserverv1.PrefixedClaimOrExpression{Claim: "sub", Prefix: ptr("")},
		},
	}
}

// offline returns an authenticator whose keys are already loaded, for
// tests of everything after the key fetch.
func offline(t testing.TB, cfg apiserverv1.JWTAuthenticator, keys ...*oidctest.Key) *Authenticator {
	t.Helper()
	c, errs := Compile(cfg, field.NewPath("jwt").Index(0), nil)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs.ToAggregate())
	}
	a, err := New(c, Options{Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	set := &keySet{fetched: testNow}
	for _, k := range keys {
		set.keys = append(set.keys, k.JWK())
	}
	a.keys.Store(set)
	a.health.Store(nil)
	return a
}

// claimsFor returns valid standard claims for testIssuer plus extra.
func claimsFor(extra map[string]any) map[string]any {
	c := map[string]any{
		"iss": testIssuer,
		"aud": "my-app",
		"sub": "jane",
		"exp": testNow.Add(time.Hour).Unix(),
		"iat": testNow.Add(-time.Minute).Unix(),
		"nbf": testNow.Add(-time.Minute).Unix(),
	}
	for k, v := range extra {
		if _, ok := v.(deleteClaim); ok {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return c
}

func sign(t testing.TB, k *oidctest.Key, claims any) string {
	t.Helper()
	tok, err := k.Sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// deleteClaim, as a value in claimsFor, removes the claim (nil is a JSON
// null).
type deleteClaim struct{}

var del = deleteClaim{}
