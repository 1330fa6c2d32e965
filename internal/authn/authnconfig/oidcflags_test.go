package authnconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

func TestOIDCFlags(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		flags OIDCFlags
		want  *apiserverv1.AuthenticationConfiguration
	}{
		{"none", OIDCFlags{}, nil},
		{"issuer prefix by default", OIDCFlags{IssuerURL: "https://i", ClientID: "c", Set: true},
			&apiserverv1.AuthenticationConfiguration{JWT: []apiserverv1.JWTAuthenticator{{
				Issuer:        apiserverv1.Issuer{URL: "https://i", Audiences: []string{"c"}},
				ClaimMappings: apiserverv1.ClaimMappings{Username: apiserverv1.PrefixedClaimOrExpression{Claim: "sub", Prefix: str("https://i#")}},
			}}}},
		{"email unprefixed, groups, required claims in order", OIDCFlags{IssuerURL: "https://i", ClientID: "c", UsernameClaim: "email",
			GroupsClaim: "g", GroupsPrefix: "p:", RequiredClaims: map[string]string{"b": "2", "a": "1"}, Set: true},
			&apiserverv1.AuthenticationConfiguration{JWT: []apiserverv1.JWTAuthenticator{{
				Issuer:               apiserverv1.Issuer{URL: "https://i", Audiences: []string{"c"}},
				ClaimValidationRules: []apiserverv1.ClaimValidationRule{{Claim: "a", RequiredValue: "1"}, {Claim: "b", RequiredValue: "2"}},
				ClaimMappings: apiserverv1.ClaimMappings{
					Username: apiserverv1.PrefixedClaimOrExpression{Claim: "email", Prefix: str("")},
					Groups:   apiserverv1.PrefixedClaimOrExpression{Claim: "g", Prefix: str("p:")},
				},
			}}}},
		{"dash means no prefix", OIDCFlags{IssuerURL: "https://i", ClientID: "c", UsernamePrefix: "-", Set: true},
			&apiserverv1.AuthenticationConfiguration{JWT: []apiserverv1.JWTAuthenticator{{
				Issuer:        apiserverv1.Issuer{URL: "https://i", Audiences: []string{"c"}},
				ClaimMappings: apiserverv1.ClaimMappings{Username: apiserverv1.PrefixedClaimOrExpression{Claim: "sub", Prefix: str("")}},
			}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.flags.Config()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
	if err := (OIDCFlags{GroupsClaim: "g", Set: true}).Validate(); err == nil || err.Error() != "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set" {
		t.Errorf("groups claim alone: %v", err)
	}
	if err := (OIDCFlags{}).Validate(); err != nil {
		t.Error(err)
	}
}
