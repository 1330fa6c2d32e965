package jwt

import (
	"context"
	"strings"
	"testing"
	"time"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// FuzzAuthenticateToken feeds arbitrary tokens to an issuer with CEL
// mappings and rules: any outcome is fine except a panic, a success for a
// token not signed by the issuer's key, or a hang.
func FuzzAuthenticateToken(f *testing.F) {
	k := key(f, "ec-1")
	cfg := baseConfig()
	cfg.ClaimMappings = apiserverv1.ClaimMappings{
		Username: apiserverv1.PrefixedClaimOrExpression{Expression: `claims.sub + ":x"`},
		Groups:   apiserverv1.PrefixedClaimOrExpression{Expression: `has(claims.g) ? claims.g : []`},
		Extra:    []apiserverv1.ExtraMapping{{Key: "example.com/a", ValueExpression: `claims.?a.orValue("")`}},
	}
	cfg.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.exp - claims.iat <= 86400.0"}}
	cfg.UserValidationRules = []apiserverv1.UserValidationRule{{Expression: "!user.username.startsWith('system:')"}}
	a := offline(f, cfg, k)
	set, err := NewSet(a)
	if err != nil {
		f.Fatal(err)
	}

	good := sign(f, k, claimsFor(map[string]any{"g": []any{"a", ""}, "a": "b"}))
	f.Add(good)
	f.Add(rawToken(map[string]string{"alg": "none"}, claimsFor(nil), nil))
	f.Add(rawToken(map[string]string{"alg": "ES256", "kid": "ec-1"}, claimsFor(nil), []byte("sig")))
	f.Add(rawToken(map[string]string{"alg": "ES256"}, map[string]any{"iss": testIssuer, "aud": []any{1, nil}}, nil))
	f.Add(rawToken(map[string]any{"alg": "ES256", "crit": []string{"b64"}, "b64": false}, claimsFor(nil), nil))
	f.Add(strings.Replace(good, ".", "..", 1))
	f.Add("eyJ.eyJ.")
	f.Add("not a token")

	f.Fuzz(func(t *testing.T, token string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		u, ok, err := set.AuthenticateToken(ctx, token)
		if ok && (err != nil || u == nil) {
			t.Fatalf("ok with err=%v user=%v", err, u)
		}
		if ok && token != good {
			// A different string can only verify if it is the same JWS
			// (go-jose tolerates nothing else), so the user must match.
			if u.GetName() != "jane:x" {
				t.Fatalf("forged token accepted as %q", u.GetName())
			}
		}
	})
}

// FuzzUntrustedIssuer: the routing peek never panics.
func FuzzUntrustedIssuer(f *testing.F) {
	f.Add("eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.")
	f.Add("eyJ.e30.")
	f.Fuzz(func(t *testing.T, token string) {
		_, _ = untrustedIssuer(token)
	})
}
