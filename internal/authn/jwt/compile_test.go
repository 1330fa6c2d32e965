package jwt

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// TestCompileValidation checks every validation rule of kube-apiserver's
// AuthenticationConfiguration for one JWT authenticator, with its field
// path and message. A want ending in "*" matches as a prefix (CEL's own
// diagnostics follow).
func TestCompileValidation(t *testing.T) {
	type cfgFn = func(*apiserverv1.JWTAuthenticator)
	issuer := func(f func(*apiserverv1.Issuer)) cfgFn {
		return func(c *apiserverv1.JWTAuthenticator) { f(&c.Issuer) }
	}
	username := func(m apiserverv1.PrefixedClaimOrExpression) cfgFn {
		return func(c *apiserverv1.JWTAuthenticator) { c.ClaimMappings.Username = m }
	}
	claimRules := func(r ...apiserverv1.ClaimValidationRule) cfgFn {
		return func(c *apiserverv1.JWTAuthenticator) { c.ClaimValidationRules = r }
	}
	extra := func(x ...apiserverv1.ExtraMapping) cfgFn {
		return func(c *apiserverv1.JWTAuthenticator) { c.ClaimMappings.Extra = x }
	}
	userRules := func(r ...apiserverv1.UserValidationRule) cfgFn {
		return func(c *apiserverv1.JWTAuthenticator) { c.UserValidationRules = r }
	}
	const p = "jwt[0]."

	tests := []struct {
		name       string
		cfg        cfgFn
		disallowed []string
		want       []string
	}{
		{name: "minimal valid", cfg: func(*apiserverv1.JWTAuthenticator) {}},
		{name: "url required", cfg: issuer(func(i *apiserverv1.Issuer) { i.URL = "" }),
			want: []string{p + "issuer.url: Required value"}},
		{name: "url must be https", cfg: issuer(func(i *apiserverv1.Issuer) { i.URL = "http://issuer.example.com" }),
			want: []string{p + `issuer.url: Invalid value: "http://issuer.example.com": URL scheme must be https`}},
		{name: "url without user, query or fragment", cfg: issuer(func(i *apiserverv1.Issuer) { i.URL = "https://u:p@issuer.example.com/?q=1#f" }),
			want: []string{
				p + `issuer.url: Invalid value: "https://u:p@issuer.example.com/?q=1#f": URL must not contain a username or password`,
				p + `issuer.url: Invalid value: "https://u:p@issuer.example.com/?q=1#f": URL must not contain a query`,
				p + `issuer.url: Invalid value: "https://u:p@issuer.example.com/?q=1#f": URL must not contain a fragment`,
			}},
		{name: "url must not be a service account issuer", disallowed: []string{testIssuer},
			want: []string{p + `issuer.url: Invalid value: "https://issuer.example.com": URL must not overlap with disallowed issuers: [https://issuer.example.com]`}},
		{name: "discoveryURL different from url", cfg: issuer(func(i *apiserverv1.Issuer) { i.DiscoveryURL = ptr(testIssuer + "/") }),
			want: []string{p + `issuer.discoveryURL: Invalid value: "https://issuer.example.com/": discoveryURL must be different from URL`}},
		{name: "discoveryURL must be https", cfg: issuer(func(i *apiserverv1.Issuer) {
			i.DiscoveryURL = ptr("http://oidc.oidc-namespace/.well-known/openid-configuration")
		}),
			want: []string{p + `issuer.discoveryURL: Invalid value: "http://oidc.oidc-namespace/.well-known/openid-configuration": URL scheme must be https`}},
		{name: "spec: discoveryURL in the cluster", cfg: issuer(func(i *apiserverv1.Issuer) {
			i.DiscoveryURL = ptr("https://oidc.oidc-namespace/.well-known/openid-configuration")
		})},
		{name: "empty discoveryURL is unset", cfg: issuer(func(i *apiserverv1.Issuer) { i.DiscoveryURL = ptr("") })},
		{name: "audiences required", cfg: issuer(func(i *apiserverv1.Issuer) { i.Audiences = nil }),
			want: []string{p + "issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required"}},
		{name: "audience entries non-empty and unique", cfg: issuer(func(i *apiserverv1.Issuer) {
			i.Audiences = []string{"", "a", "a"}
			i.AudienceMatchPolicy = apiserverv1.AudienceMatchPolicyMatchAny
		}),
			want: []string{p + "issuer.audiences[0]: Required value", p + `issuer.audiences[2]: Duplicate value: "a"`}},
		{name: "several audiences need MatchAny", cfg: issuer(func(i *apiserverv1.Issuer) { i.Audiences = []string{"a", "b"} }),
			want: []string{p + `issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences`}},
		{name: "several audiences with MatchAny", cfg: issuer(func(i *apiserverv1.Issuer) {
			i.Audiences = []string{"a", "b"}
			i.AudienceMatchPolicy = apiserverv1.AudienceMatchPolicyMatchAny
		})},
		{name: "single audience with an unknown policy", cfg: issuer(func(i *apiserverv1.Issuer) { i.AudienceMatchPolicy = "MatchAll" }),
			want: []string{p + `issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience`}},
		{name: "certificateAuthority must hold certificates, not echoed", cfg: issuer(func(i *apiserverv1.Issuer) { i.CertificateAuthority = "not a pem" }),
			want: []string{p + `issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates`}},
		{name: "egress selector not supported", cfg: issuer(func(i *apiserverv1.Issuer) { i.EgressSelectorType = "cluster" }),
			want: []string{p + `issuer.egressSelectorType: Invalid value: "cluster": egress selector is not supported`}},
		{name: "egress selector unknown", cfg: issuer(func(i *apiserverv1.Issuer) { i.EgressSelectorType = "elsewhere" }),
			want: []string{p + `issuer.egressSelectorType: Invalid value: "elsewhere": egress selector must be either controlplane or cluster`}},

		{name: "claim rule: claim and expression", cfg: claimRules(apiserverv1.ClaimValidationRule{Claim: "hd", Expression: "true"}),
			want: []string{p + `claimValidationRules[0]: Invalid value: "hd": claim and expression can't both be set`}},
		{name: "claim rule: neither", cfg: claimRules(apiserverv1.ClaimValidationRule{}),
			want: []string{p + "claimValidationRules[0]: Required value: claim or expression is required"}},
		{name: "claim rule: message with claim", cfg: claimRules(apiserverv1.ClaimValidationRule{Claim: "hd", Message: "m"}),
			want: []string{p + `claimValidationRules[0].message: Invalid value: "m": may not be specified when claim is set`}},
		{name: "claim rule: duplicate claim", cfg: claimRules(apiserverv1.ClaimValidationRule{Claim: "hd"}, apiserverv1.ClaimValidationRule{Claim: "hd", RequiredValue: "x"}),
			want: []string{p + `claimValidationRules[1].claim: Duplicate value: "hd"`}},
		{name: "claim rule: requiredValue with expression", cfg: claimRules(apiserverv1.ClaimValidationRule{Expression: "true", RequiredValue: "x"}),
			want: []string{p + `claimValidationRules[0].requiredValue: Invalid value: "x": may not be specified when expression is set`}},
		{name: "claim rule: duplicate expression", cfg: claimRules(apiserverv1.ClaimValidationRule{Expression: "true"}, apiserverv1.ClaimValidationRule{Expression: "true"}),
			want: []string{p + `claimValidationRules[1].expression: Duplicate value: "true"`}},
		{name: "claim rule: must be bool", cfg: claimRules(apiserverv1.ClaimValidationRule{Expression: "claims.hd"}),
			want: []string{p + `claimValidationRules[0].expression: Invalid value: "claims.hd": must evaluate to bool`}},
		{name: "claim rule: syntax error", cfg: claimRules(apiserverv1.ClaimValidationRule{Expression: "claims.hd =="}),
			want: []string{p + `claimValidationRules[0].expression: Invalid value: "claims.hd ==": compilation failed: *`}},
		{name: "claim rule: unknown variable", cfg: claimRules(apiserverv1.ClaimValidationRule{Expression: "user.username == 'x'"}),
			want: []string{p + `claimValidationRules[0].expression: Invalid value: "user.username == 'x'": compilation failed: ERROR: <input>:1:1: undeclared reference to 'user'*`}},

		{name: "username required", cfg: username(apiserverv1.PrefixedClaimOrExpression{}),
			want: []string{p + "claimMappings.username: Required value: claim or expression is required"}},
		{name: "username claim and expression", cfg: username(apiserverv1.PrefixedClaimOrExpression{Claim: "sub", Expression: "claims.sub", Prefix: ptr("")}),
			want: []string{p + `claimMappings.username: Invalid value: "": claim and expression can't both be set`}},
		{name: "username claim needs a prefix", cfg: username(apiserverv1.PrefixedClaimOrExpression{Claim: "sub"}),
			want: []string{p + "claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing"}},
		{name: "username expression takes no prefix", cfg: username(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.sub", Prefix: ptr("p:")}),
			want: []string{p + `claimMappings.username.prefix: Invalid value: "p:": may not be specified when expression is set`}},
		{name: "username expression must give a string", cfg: username(apiserverv1.PrefixedClaimOrExpression{Expression: "1 + 1"}),
			want: []string{p + `claimMappings.username.expression: Invalid value: "1 + 1": must evaluate to string`}},
		{name: "spec: username from claims.email needs email_verified", cfg: username(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email"}),
			want: []string{p + `claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression`}},
		{name: "spec: optional select of claims.email needs email_verified too", cfg: username(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.?email.orValue('x')"}),
			want: []string{p + `claimMappings.username.expression: Invalid value: "claims.?email.orValue('x')": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression`}},
		{name: "spec: email_verified in the username expression", cfg: username(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email_verified ? claims.email : ''"})},
		{name: "spec: email_verified in a claim rule", cfg: func(c *apiserverv1.JWTAuthenticator) {
			username(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email"})(c)
			claimRules(apiserverv1.ClaimValidationRule{Expression: "claims.?email_verified.orValue(true) == true"})(c)
		}},
		{name: "spec: email_verified in an extra expression", cfg: func(c *apiserverv1.JWTAuthenticator) {
			username(apiserverv1.PrefixedClaimOrExpression{Expression: "claims.email"})(c)
			extra(apiserverv1.ExtraMapping{Key: "example.com/v", ValueExpression: "string(claims.email_verified)"})(c)
		}},
		{name: "email claim (not expression) needs nothing more", cfg: username(apiserverv1.PrefixedClaimOrExpression{Claim: "email", Prefix: ptr("")})},

		{name: "groups claim and expression", cfg: func(c *apiserverv1.JWTAuthenticator) {
			c.ClaimMappings.Groups = apiserverv1.PrefixedClaimOrExpression{Claim: "g", Expression: "claims.g"}
		}, want: []string{p + `claimMappings.groups: Invalid value: "": claim and expression can't both be set`}},
		{name: "groups claim needs a prefix", cfg: func(c *apiserverv1.JWTAuthenticator) {
			c.ClaimMappings.Groups = apiserverv1.PrefixedClaimOrExpression{Claim: "g"}
		}, want: []string{p + "claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing"}},
		{name: "groups expression of the wrong type", cfg: func(c *apiserverv1.JWTAuthenticator) {
			c.ClaimMappings.Groups = apiserverv1.PrefixedClaimOrExpression{Expression: "{'a': 1}"}
		}, want: []string{p + `claimMappings.groups.expression: Invalid value: "{'a': 1}": must evaluate to one of [string list(string)]`}},
		{name: "uid claim and expression", cfg: func(c *apiserverv1.JWTAuthenticator) {
			c.ClaimMappings.UID = apiserverv1.ClaimOrExpression{Claim: "sub", Expression: "claims.sub"}
		}, want: []string{p + `claimMappings.uid: Invalid value: "": claim and expression can't both be set`}},
		{name: "uid expression compile error", cfg: func(c *apiserverv1.JWTAuthenticator) {
			c.ClaimMappings.UID = apiserverv1.ClaimOrExpression{Expression: "claims.sub +"}
		}, want: []string{p + `claimMappings.uid.expression: Invalid value: "claims.sub +": compilation failed: *`}},

		{name: "extra key must be domain-prefixed", cfg: extra(apiserverv1.ExtraMapping{Key: "foo", ValueExpression: "'bar'"}),
			want: []string{p + `claimMappings.extra[0].key: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")`}},
		{name: "extra key required", cfg: extra(apiserverv1.ExtraMapping{ValueExpression: "'bar'"}),
			want: []string{p + "claimMappings.extra[0].key: Required value"}},
		{name: "extra key lower case", cfg: extra(apiserverv1.ExtraMapping{Key: "example.org/Foo", ValueExpression: "'bar'"}),
			want: []string{p + `claimMappings.extra[0].key: Invalid value: "example.org/Foo": must be lowercase`}},
		{name: "extra key not kubernetes.io", cfg: extra(apiserverv1.ExtraMapping{Key: "kubernetes.io/foo", ValueExpression: "'bar'"}),
			want: []string{p + `claimMappings.extra[0].key: Invalid value: "kubernetes.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use`}},
		{name: "extra key not a k8s.io subdomain", cfg: extra(apiserverv1.ExtraMapping{Key: "sub.k8s.io/foo", ValueExpression: "'bar'"}),
			want: []string{p + `claimMappings.extra[0].key: Invalid value: "sub.k8s.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use`}},
		{name: "extra key unique", cfg: extra(apiserverv1.ExtraMapping{Key: "example.org/foo", ValueExpression: "'a'"}, apiserverv1.ExtraMapping{Key: "example.org/foo", ValueExpression: "'b'"}),
			want: []string{p + `claimMappings.extra[1].key: Duplicate value: "example.org/foo"`}},
		{name: "extra valueExpression required", cfg: extra(apiserverv1.ExtraMapping{Key: "example.org/foo"}),
			want: []string{p + "claimMappings.extra[0].valueExpression: Required value"}},
		{name: "extra valueExpression of the wrong type", cfg: extra(apiserverv1.ExtraMapping{Key: "example.org/foo", ValueExpression: "42"}),
			want: []string{p + `claimMappings.extra[0].valueExpression: Invalid value: "42": must evaluate to one of [string list(string)]`}},

		{name: "user rule expression required", cfg: userRules(apiserverv1.UserValidationRule{Message: "m"}),
			want: []string{p + "userValidationRules[0].expression: Required value"}},
		{name: "user rule duplicate", cfg: userRules(apiserverv1.UserValidationRule{Expression: "true"}, apiserverv1.UserValidationRule{Expression: "true"}),
			want: []string{p + `userValidationRules[1].expression: Duplicate value: "true"`}},
		{name: "user rule must be bool", cfg: userRules(apiserverv1.UserValidationRule{Expression: "user.username"}),
			want: []string{p + `userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool`}},
		{name: "user rule: misspelt field is a compile error", cfg: userRules(apiserverv1.UserValidationRule{Expression: "user.usrname == 'x'"}),
			want: []string{p + `userValidationRules[0].expression: Invalid value: "user.usrname == 'x'": compilation failed: ERROR: <input>:1:5: undefined field 'usrname'*`}},
		{name: "user rule: claims are not visible", cfg: userRules(apiserverv1.UserValidationRule{Expression: "claims.sub == 'x'"}),
			want: []string{p + `userValidationRules[0].expression: Invalid value: "claims.sub == 'x'": compilation failed: *`}},

		{name: "every problem is reported", cfg: func(c *apiserverv1.JWTAuthenticator) {
			c.Issuer.URL = "http://x"
			c.Issuer.Audiences = nil
			c.ClaimMappings.Username = apiserverv1.PrefixedClaimOrExpression{}
			c.UserValidationRules = []apiserverv1.UserValidationRule{{}}
		}, want: []string{
			p + `issuer.url: Invalid value: "http://x": URL scheme must be https`,
			p + "issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required",
			p + "claimMappings.username: Required value: claim or expression is required",
			p + "userValidationRules[0].expression: Required value",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			c, errs := Compile(cfg, field.NewPath("jwt").Index(0), tt.disallowed)
			if (c == nil) != (len(errs) > 0) {
				t.Fatalf("Compile returned %v with errors %v", c, errs)
			}
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(tt.want), errList(errs))
			}
			for i, w := range tt.want {
				got := errs[i].Error()
				if prefix, ok := strings.CutSuffix(w, "*"); ok {
					if !strings.HasPrefix(got, prefix) {
						t.Errorf("error %d:\n got %s\nwant %s...", i, got, prefix)
					}
				} else if got != w {
					t.Errorf("error %d:\n got %s\nwant %s", i, got, w)
				}
			}
		})
	}
}

func errList(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  " + e.Error() + "\n")
	}
	return b.String()
}
