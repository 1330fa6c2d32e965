package jwt

import (
	"context"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authn/cache"
)

// benchConfig maps like a typical deployment: username by claim, groups
// by claim, one extra by expression.
func benchConfig() apiserverv1.JWTAuthenticator {
	cfg := baseConfig()
	cfg.ClaimMappings.Groups = apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("oidc:")}
	cfg.ClaimMappings.Extra = []apiserverv1.ExtraMapping{{Key: "example.com/tenant", ValueExpression: "claims.tenant"}}
	return cfg
}

func benchToken(b *testing.B, kid string) string {
	return sign(b, key(b, kid), claimsFor(map[string]any{
		"groups": []any{"dev", "ops"}, "tenant": "t-1", "jti": "abc", "email": "jane@example.com",
	}))
}

// BenchmarkAuthenticate measures a full uncached authentication: routing,
// signature, standard claims, mappings. The floor is go-jose alone
// verifying the same token.
func BenchmarkAuthenticate(b *testing.B) {
	for _, kid := range []string{"rsa-1", "ec-1"} {
		k := key(b, kid)
		tok := benchToken(b, kid)
		name := string(k.Alg)
		b.Run(name+"/uncached", func(b *testing.B) {
			set, _ := NewSet(offline(b, benchConfig(), k))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := set.AuthenticateToken(context.Background(), tok); !ok {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/cached", func(b *testing.B) {
			set, _ := NewSet(offline(b, benchConfig(), k))
			// The token's exp is an hour after the fixed test clock, which
			// is in the past for the cache's real clock: use a cache clock
			// at the test time.
			c := cache.New(set, cache.Options{Now: func() time.Time { return testNow }})
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := c.AuthenticateToken(context.Background(), tok); !ok {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/floor-go-jose-verify", func(b *testing.B) {
			pub := k.Private.Public()
			b.ReportAllocs()
			for b.Loop() {
				jws, err := jose.ParseSignedCompact(tok, []jose.SignatureAlgorithm{k.Alg})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := jws.Verify(pub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
