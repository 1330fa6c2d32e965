package jwt

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

type wantUser struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

func toWant(u user.Info) wantUser {
	return wantUser{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
}

// TestClaimMappings covers every claim mapping example of spec 003 (the
// AuthenticationConfiguration reference) and of the "Authenticating"
// page, plus the documented rules around them.
func TestClaimMappings(t *testing.T) {
	mapUsername := func(m apiserverv1.PrefixedClaimOrExpression) func(*apiserverv1.JWTAuthenticator) {
		return func(c *apiserverv1.JWTAuthenticator) { c.ClaimMappings.Username = m }
	}
	mapGroups := func(m apiserverv1.PrefixedClaimOrExpression) func(*apiserverv1.JWTAuthenticator) {
		return func(c *apiserverv1.JWTAuthenticator) { c.ClaimMappings.Groups = m }
	}
	mapExtra := func(x ...apiserverv1.ExtraMapping) func(*apiserverv1.JWTAuthenticator) {
		return func(c *apiserverv1.JWTAuthenticator) { c.ClaimMappings.Extra = x }
	}
	// The "Authenticating" page's example configuration.
	docExample := func(username string) func(*apiserverv1.JWTAuthenticator) {
		return func(c *apiserverv1.JWTAuthenticator) {
			c.ClaimMappings = apiserverv1.ClaimMappings{
				Username: apiserverv1.PrefixedClaimOrExpression{Expression: username},
				Groups:   apiserverv1.PrefixedClaimOrExpression{Expression: `claims.roles.split(",")`},
				UID:      apiserverv1.ClaimOrExpression{Expression: "claims.sub"},
				Extra:    []apiserverv1.ExtraMapping{{Key: "example.com/tenant", ValueExpression: "claims.tenant"}},
			}
			c.UserValidationRules = []apiserverv1.UserValidationRule{{
				Expression: "!user.username.startsWith('system:')",
				Message:    "username cannot used reserved system: prefix",
			}}
		}
	}
	docClaims := map[string]any{
		"jti":   "7c337942807e73caa2c30c868ac0ce910bce02ddcbfebe8c23b8b5f27ad62873",
		"roles": "user,admin", "sub": "auth",
		"tenant": "72f988bf-86f1-41af-91ab-2d7cd011db4a", "username": "foo",
	}
	credID := map[string][]string{user.CredentialIDKey: {"JTI=7c337942807e73caa2c30c868ac0ce910bce02ddcbfebe8c23b8b5f27ad62873"}}

	tests := []struct {
		name    string
		cfg     []func(*apiserverv1.JWTAuthenticator)
		claims  map[string]any
		want    wantUser
		wantErr error
		errText string
	}{
		{
			name:   "doc: valid token",
			cfg:    []func(*apiserverv1.JWTAuthenticator){docExample(`claims.username + ":external-user"`)},
			claims: docClaims,
			want: wantUser{Name: "foo:external-user", UID: "auth", Groups: []string{"user", "admin"},
				Extra: map[string][]string{"example.com/tenant": {"72f988bf-86f1-41af-91ab-2d7cd011db4a"},
					user.CredentialIDKey: credID[user.CredentialIDKey]}},
		},
		{
			name: "doc: fails claim validation (no hd claim)",
			cfg: []func(*apiserverv1.JWTAuthenticator){docExample(`claims.username + ":external-user"`), func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: `claims.hd == "example.com"`, Message: "the hd claim must be set to example.com"}}
			}},
			claims:  docClaims,
			wantErr: ErrClaimValidation, errText: "no such key: hd",
		},
		{
			name: "doc: fails claim validation (hd differs), with the message",
			cfg: []func(*apiserverv1.JWTAuthenticator){docExample(`claims.username + ":external-user"`), func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: `claims.hd == "example.com"`, Message: "the hd claim must be set to example.com"}}
			}},
			claims:  map[string]any{"hd": "other.com", "username": "foo", "roles": "a", "tenant": "t"},
			wantErr: ErrClaimValidation, errText: `validation expression 'claims.hd == "example.com"' failed: the hd claim must be set to example.com`,
		},
		{
			name:    "doc: fails user validation (system: prefix)",
			cfg:     []func(*apiserverv1.JWTAuthenticator){docExample(`"system:" + claims.username`)},
			claims:  map[string]any{"hd": "example.com", "roles": "user,admin", "sub": "auth", "tenant": "t", "username": "foo"},
			wantErr: ErrUserValidation, errText: "username cannot used reserved system: prefix",
		},
		{
			name: "doc: groups rule over user",
			cfg: []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("")}), func(c *apiserverv1.JWTAuthenticator) {
				c.UserValidationRules = []apiserverv1.UserValidationRule{{Expression: "user.groups.all(group, !group.startsWith('system:'))", Message: "groups cannot used reserved system: prefix"}}
			}},
			claims:  map[string]any{"groups": []any{"dev", "system:masters"}},
			wantErr: ErrUserValidation, errText: "groups cannot used reserved system: prefix",
		},
		{
			name:   "spec: extra hard-coded key and value",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapExtra(apiserverv1.ExtraMapping{Key: "example.com/foo", ValueExpression: "'bar'"})},
			claims: map[string]any{},
			want:   wantUser{Name: "jane", Extra: map[string][]string{"example.com/foo": {"bar"}}},
		},
		{
			name:   "spec: extra copied from a claim",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapExtra(apiserverv1.ExtraMapping{Key: "example.com/foo", ValueExpression: "claims.some_claim"})},
			claims: map[string]any{"some_claim": "value"},
			want:   wantUser{Name: "jane", Extra: map[string][]string{"example.com/foo": {"value"}}},
		},
		{
			name:   "spec: extra admin when is_admin is true",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapExtra(apiserverv1.ExtraMapping{Key: "example.com/admin", ValueExpression: `(has(claims.is_admin) && claims.is_admin) ? "true":""`})},
			claims: map[string]any{"is_admin": true},
			want:   wantUser{Name: "jane", Extra: map[string][]string{"example.com/admin": {"true"}}},
		},
		{
			name:   "spec: no extra admin when is_admin is false",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapExtra(apiserverv1.ExtraMapping{Key: "example.com/admin", ValueExpression: `(has(claims.is_admin) && claims.is_admin) ? "true":""`})},
			claims: map[string]any{"is_admin": false},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "spec: no extra admin when is_admin is absent",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapExtra(apiserverv1.ExtraMapping{Key: "example.com/admin", ValueExpression: `(has(claims.is_admin) && claims.is_admin) ? "true":""`})},
			claims: map[string]any{},
			want:   wantUser{Name: "jane"},
		},
		{
			name: "spec: extra list drops empty strings, [] and null are absent",
			cfg: []func(*apiserverv1.JWTAuthenticator){mapExtra(
				apiserverv1.ExtraMapping{Key: "example.com/list", ValueExpression: `["a", "", "b"]`},
				apiserverv1.ExtraMapping{Key: "example.com/empty", ValueExpression: `claims.empty`},
				apiserverv1.ExtraMapping{Key: "example.com/null", ValueExpression: `claims.nothing`},
				apiserverv1.ExtraMapping{Key: "example.com/blank", ValueExpression: `""`},
			)},
			claims: map[string]any{"empty": []any{}, "nothing": nil},
			want:   wantUser{Name: "jane", Extra: map[string][]string{"example.com/list": {"a", "b"}}},
		},
		{
			name:    "extra of the wrong type fails",
			cfg:     []func(*apiserverv1.JWTAuthenticator){mapExtra(apiserverv1.ExtraMapping{Key: "example.com/n", ValueExpression: `claims.n`})},
			claims:  map[string]any{"n": 3},
			wantErr: ErrClaimMapping, errText: "must return a string or a list of strings",
		},
		{
			name:   "spec: username claim with empty prefix is not prefixed",
			claims: map[string]any{"sub": "jane"},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "spec: username claim with a prefix",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Claim: "sub", Prefix: ptr("oidc:")})},
			claims: map[string]any{"sub": "jane"},
			want:   wantUser{Name: "oidc:jane"},
		},
		{
			name:   "spec: the legacy issuer# prefix written explicitly",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Claim: "sub", Prefix: ptr(testIssuer + "#")})},
			claims: map[string]any{"sub": "jane"},
			want:   wantUser{Name: testIssuer + "#jane"},
		},
		{
			name:    "username claim must be a string",
			claims:  map[string]any{"sub": 42},
			wantErr: ErrClaimMapping, errText: `claim "sub" is not a string`,
		},
		{
			name:    "username claim must be present",
			claims:  map[string]any{"sub": del},
			wantErr: ErrClaimMapping, errText: `claim "sub" not present`,
		},
		{
			name:   "spec: username claim email, email_verified true",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Claim: "email", Prefix: ptr("")})},
			claims: map[string]any{"email": "jane@example.com", "email_verified": true},
			want:   wantUser{Name: "jane@example.com"},
		},
		{
			name:   "spec: username claim email, email_verified absent",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Claim: "email", Prefix: ptr("")})},
			claims: map[string]any{"email": "jane@example.com"},
			want:   wantUser{Name: "jane@example.com"},
		},
		{
			name:    "spec: username claim email, email_verified false",
			cfg:     []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Claim: "email", Prefix: ptr("")})},
			claims:  map[string]any{"email": "jane@example.com", "email_verified": false},
			wantErr: ErrEmailNotVerified,
		},
		{
			name:    "username claim email, email_verified not a boolean",
			cfg:     []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Claim: "email", Prefix: ptr("")})},
			claims:  map[string]any{"email": "jane@example.com", "email_verified": "true"},
			wantErr: ErrEmailNotVerified,
		},
		{
			name: "spec: username expression with the email_verified claim rule",
			cfg: []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email"}), func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.?email_verified.orValue(true) == true"}}
			}},
			claims: map[string]any{"email": "jane@example.com"},
			want:   wantUser{Name: "jane@example.com"},
		},
		{
			name: "spec: the email_verified claim rule rejects false",
			cfg: []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email"}), func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.?email_verified.orValue(true) == true"}}
			}},
			claims:  map[string]any{"email": "jane@example.com", "email_verified": false},
			wantErr: ErrClaimValidation,
		},
		{
			name: "spec: the email_verified claim rule catches a non-boolean at run time",
			cfg: []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email"}), func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.?email_verified.orValue(true) == true"}}
			}},
			claims:  map[string]any{"email": "jane@example.com", "email_verified": "yes"},
			wantErr: ErrClaimValidation,
		},
		{
			name:    "spec: an empty username from an expression fails",
			cfg:     []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: `""`})},
			claims:  map[string]any{},
			wantErr: ErrClaimMapping, errText: "empty username via CEL expression is not allowed",
		},
		{
			name:    "username expression must give a string",
			cfg:     []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.n"})},
			claims:  map[string]any{"n": 1},
			wantErr: ErrClaimMapping, errText: "username claim expression must return a string",
		},
		{
			name:   "spec: groups claim with prefix, string or array",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("oidc:")})},
			claims: map[string]any{"groups": []any{"dev", "ops"}},
			want:   wantUser{Name: "jane", Groups: []string{"oidc:dev", "oidc:ops"}},
		},
		{
			name:   "groups claim as a single string",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "role", Prefix: ptr("")})},
			claims: map[string]any{"role": "admin"},
			want:   wantUser{Name: "jane", Groups: []string{"admin"}},
		},
		{
			name:   `spec: groups "" is no group`,
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("p:")})},
			claims: map[string]any{"groups": ""},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "spec: groups [] is no group",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("p:")})},
			claims: map[string]any{"groups": []any{}},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "spec: groups null is no group",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("p:")})},
			claims: map[string]any{"groups": nil},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "spec: groups claim absent is no group",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("p:")})},
			claims: map[string]any{},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "spec: empty strings are dropped from group arrays",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("")})},
			claims: map[string]any{"groups": []any{"a", "", "b"}},
			want:   wantUser{Name: "jane", Groups: []string{"a", "b"}},
		},
		{
			name:    "groups claim with a non-string member fails",
			cfg:     []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("")})},
			claims:  map[string]any{"groups": []any{"a", 1}},
			wantErr: ErrClaimMapping,
		},
		{
			name:   "spec: groups expression: split roles",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Expression: `claims.roles.split(",")`})},
			claims: map[string]any{"roles": "user,admin"},
			want:   wantUser{Name: "jane", Groups: []string{"user", "admin"}},
		},
		{
			name:   "spec: groups expression giving [], null or empty strings",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Expression: `has(claims.g) ? claims.g : null`})},
			claims: map[string]any{"g": []any{"", ""}},
			want:   wantUser{Name: "jane"},
		},
		{
			name:   "groups expression giving null",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapGroups(apiserverv1.PrefixedClaimOrExpression{Expression: `has(claims.g) ? claims.g : null`})},
			claims: map[string]any{},
			want:   wantUser{Name: "jane"},
		},
		{
			name: "spec: uid from a claim",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimMappings.UID = apiserverv1.ClaimOrExpression{Claim: "sub"}
			}},
			claims: map[string]any{},
			want:   wantUser{Name: "jane", UID: "jane"},
		},
		{
			name: "uid claim must be present",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimMappings.UID = apiserverv1.ClaimOrExpression{Claim: "oid"}
			}},
			claims:  map[string]any{},
			wantErr: ErrClaimMapping, errText: `claim "oid" not present`,
		},
		{
			name: "uid expression must give a string",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimMappings.UID = apiserverv1.ClaimOrExpression{Expression: "claims.n"}
			}},
			claims:  map[string]any{"n": 1.5},
			wantErr: ErrClaimMapping, errText: "uid claim expression must return a string",
		},
		{
			name: "spec: required claim with value",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Claim: "hd", RequiredValue: "example.com"}}
			}},
			claims: map[string]any{"hd": "example.com"},
			want:   wantUser{Name: "jane"},
		},
		{
			name: "spec: required claim with another value",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Claim: "hd", RequiredValue: "example.com"}}
			}},
			claims:  map[string]any{"hd": "evil.com"},
			wantErr: ErrClaimValidation, errText: "required claim hd value does not match. Got = evil.com, want = example.com",
		},
		{
			name: "spec: required claim without requiredValue must be present and empty",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Claim: "marker"}}
			}},
			claims: map[string]any{"marker": ""},
			want:   wantUser{Name: "jane"},
		},
		{
			name: "spec: required claim absent",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Claim: "marker"}}
			}},
			claims:  map[string]any{},
			wantErr: ErrClaimValidation, errText: "required claim marker not present",
		},
		{
			name: "required claim must be a string",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Claim: "marker", RequiredValue: "1"}}
			}},
			claims:  map[string]any{"marker": 1},
			wantErr: ErrClaimValidation,
		},
		{
			name: "doc: token lifetime rule passes",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.exp - claims.nbf <= 86400", Message: "total token lifetime must not exceed 24 hours"}}
			}},
			claims: map[string]any{},
			want:   wantUser{Name: "jane"},
		},
		{
			name: "doc: token lifetime rule fails",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: "claims.exp - claims.nbf <= 86400", Message: "total token lifetime must not exceed 24 hours"}}
			}},
			claims:  map[string]any{"nbf": testNow.Add(-48 * time.Hour).Unix()},
			wantErr: ErrClaimValidation, errText: "total token lifetime must not exceed 24 hours",
		},
		{
			name: "spec: exact audience match with sets.equivalent",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.Issuer.Audiences = []string{"foo", "bar", "baz"}
				c.Issuer.AudienceMatchPolicy = apiserverv1.AudienceMatchPolicyMatchAny
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: `sets.equivalent(claims.aud, ["bar", "foo", "baz"])`}}
			}},
			claims: map[string]any{"aud": []any{"foo", "bar", "baz"}},
			want:   wantUser{Name: "jane"},
		},
		{
			name: "spec: exact audience match rejects a subset",
			cfg: []func(*apiserverv1.JWTAuthenticator){func(c *apiserverv1.JWTAuthenticator) {
				c.Issuer.Audiences = []string{"foo", "bar", "baz"}
				c.Issuer.AudienceMatchPolicy = apiserverv1.AudienceMatchPolicyMatchAny
				c.ClaimValidationRules = []apiserverv1.ClaimValidationRule{{Expression: `sets.equivalent(claims.aud, ["bar", "foo", "baz"])`}}
			}},
			claims:  map[string]any{"aud": []any{"foo"}},
			wantErr: ErrClaimValidation,
		},
		{
			name:   "spec: nested claims with dot notation",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.foo.bar"})},
			claims: map[string]any{"foo": map[string]any{"bar": "nested"}},
			want:   wantUser{Name: "nested"},
		},
		{
			name:   "escaped claim names (foo__dot__bar is foo.bar)",
			cfg:    []func(*apiserverv1.JWTAuthenticator){mapUsername(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.example__dot__com"})},
			claims: map[string]any{"example.com": "dotted"},
			want:   wantUser{Name: "dotted"},
		},
		{
			name: "spec: user validation rules see uid, groups and extra",
			cfg: []func(*apiserverv1.JWTAuthenticator){
				mapGroups(apiserverv1.PrefixedClaimOrExpression{Claim: "groups", Prefix: ptr("")}),
				mapExtra(apiserverv1.ExtraMapping{Key: "example.com/t", ValueExpression: "'x'"}),
				func(c *apiserverv1.JWTAuthenticator) {
					c.ClaimMappings.UID = apiserverv1.ClaimOrExpression{Expression: "'u-1'"}
					c.UserValidationRules = []apiserverv1.UserValidationRule{
						{Expression: "user.uid == 'u-1'"},
						{Expression: "'dev' in user.groups"},
						{Expression: "user.extra['example.com/t'] == ['x']"},
					}
				},
			},
			claims: map[string]any{"groups": []any{"dev"}},
			want:   wantUser{Name: "jane", UID: "u-1", Groups: []string{"dev"}, Extra: map[string][]string{"example.com/t": {"x"}}},
		},
		{
			name:   "jti becomes the credential id",
			claims: map[string]any{"jti": "abc"},
			want:   wantUser{Name: "jane", Extra: map[string][]string{user.CredentialIDKey: {"JTI=abc"}}},
		},
	}
	k := key(t, "rsa-1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			for _, f := range tt.cfg {
				f(&cfg)
			}
			a := offline(t, cfg, k)
			tok := sign(t, k, claimsFor(tt.claims))
			got, ok, err := a.AuthenticateToken(context.Background(), tok)
			if tt.wantErr != nil {
				if ok || !errors.Is(err, tt.wantErr) {
					t.Fatalf("got ok=%v err=%v, want %v", ok, err, tt.wantErr)
				}
				if tt.errText != "" && !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %q does not contain %q", err, tt.errText)
				}
				return
			}
			if err != nil || !ok {
				t.Fatalf("got ok=%v err=%v", ok, err)
			}
			if diff := cmp.Diff(tt.want, toWant(got)); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
		})
	}
}
