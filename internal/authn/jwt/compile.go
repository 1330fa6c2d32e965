package jwt

import (
	"crypto/x509"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	certutil "k8s.io/client-go/util/cert"
)

// Compiled is one validated JWTAuthenticator with its CEL expressions
// compiled. It is immutable and may back several Authenticators.
type Compiled struct {
	issuer       string
	discoveryURL string
	audiences    []string
	roots        *x509.CertPool // nil: the system roots

	required   []requiredClaim
	claimRules []rule
	username   mapping
	groups     mapping
	uid        mapping
	extra      []extraMapping
	userRules  []rule
}

// Issuer is the issuer URL: the iss claim of the tokens this accepts.
func (c *Compiled) Issuer() string { return c.issuer }

type requiredClaim struct{ claim, value string }

type rule struct {
	p       *program
	message string
}

// mapping is a claim (with prefix) or an expression; neither means the
// attribute is not mapped.
type mapping struct {
	claim  string
	prefix string
	p      *program
}

type extraMapping struct {
	key string
	p   *program
}

// Compile validates one JWTAuthenticator with kube-apiserver's rules and
// messages and compiles its expressions. Every problem is returned with
// its path under fldPath. disallowedIssuers are issuer URLs in use by
// other authenticators (the service account issuers).
func Compile(a apiserverv1.JWTAuthenticator, fldPath *field.Path, disallowedIssuers []string) (*Compiled, field.ErrorList) {
	envs, err := loadEnvs()
	if err != nil {
		return nil, field.ErrorList{field.InternalError(fldPath, err)}
	}
	c := &Compiled{}
	var errs field.ErrorList
	errs = append(errs, c.compileIssuer(a.Issuer, fldPath.Child("issuer"), disallowedIssuers)...)

	var st emailState
	errs = append(errs, c.compileClaimRules(envs, &st, a.ClaimValidationRules, fldPath.Child("claimValidationRules"))...)
	errs = append(errs, c.compileMappings(envs, &st, a.ClaimMappings, fldPath.Child("claimMappings"))...)
	errs = append(errs, c.compileUserRules(envs, a.UserValidationRules, fldPath.Child("userValidationRules"))...)
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// emailState tracks the email_verified rule: an expression that uses
// claims.email for the username needs claims.email_verified somewhere.
type emailState struct {
	usesEmail, usesEmailVerified bool
}

func (c *Compiled) compileIssuer(is apiserverv1.Issuer, fldPath *field.Path, disallowed []string) field.ErrorList {
	var errs field.ErrorList
	c.issuer = is.URL
	if is.URL == "" {
		errs = append(errs, field.Required(fldPath.Child("url"), ""))
	} else {
		errs = append(errs, validateURL(is.URL, disallowed, fldPath.Child("url"))...)
	}

	if is.DiscoveryURL != nil && *is.DiscoveryURL != "" {
		d := *is.DiscoveryURL
		c.discoveryURL = d
		if is.URL != "" && strings.TrimRight(is.URL, "/") == strings.TrimRight(d, "/") {
			errs = append(errs, field.Invalid(fldPath.Child("discoveryURL"), d, "discoveryURL must be different from URL"))
		}
		errs = append(errs, validateURL(d, nil, fldPath.Child("discoveryURL"))...)
	}

	errs = append(errs, validateAudiences(is.Audiences, is.AudienceMatchPolicy, fldPath.Child("audiences"), fldPath.Child("audienceMatchPolicy"))...)
	c.audiences = slices.Clone(is.Audiences)

	if is.CertificateAuthority != "" {
		pool, err := certutil.NewPoolFromBytes([]byte(is.CertificateAuthority))
		if err != nil {
			// The contents are not secret, but they are long: do not echo them.
			errs = append(errs, field.Invalid(fldPath.Child("certificateAuthority"), "<omitted>", err.Error()))
		}
		c.roots = pool
	}

	switch is.EgressSelectorType {
	case "":
	case apiserverv1.EgressSelectorControlPlane, apiserverv1.EgressSelectorCluster:
		errs = append(errs, field.Invalid(fldPath.Child("egressSelectorType"), is.EgressSelectorType, "egress selector is not supported"))
	default:
		errs = append(errs, field.Invalid(fldPath.Child("egressSelectorType"), is.EgressSelectorType, "egress selector must be either controlplane or cluster"))
	}
	return errs
}

func validateURL(raw string, disallowed []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if slices.Contains(disallowed, raw) {
		list := slices.Clone(disallowed)
		slices.Sort(list)
		errs = append(errs, field.Invalid(fldPath, raw, fmt.Sprintf("URL must not overlap with disallowed issuers: %s", list)))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return append(errs, field.Invalid(fldPath, raw, err.Error()))
	}
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(fldPath, raw, "URL scheme must be https"))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(fldPath, raw, "URL must not contain a username or password"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(fldPath, raw, "URL must not contain a query"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(fldPath, raw, "URL must not contain a fragment"))
	}
	return errs
}

func validateAudiences(auds []string, policy apiserverv1.AudienceMatchPolicyType, fldPath, policyPath *field.Path) field.ErrorList {
	if len(auds) == 0 {
		return field.ErrorList{field.Required(fldPath, fmt.Sprintf("at least one %s is required", fldPath))}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, aud := range auds {
		if aud == "" {
			errs = append(errs, field.Required(fldPath.Index(i), ""))
		}
		if seen.Has(aud) {
			errs = append(errs, field.Duplicate(fldPath.Index(i), aud))
		}
		seen.Insert(aud)
	}
	switch {
	case len(auds) > 1 && policy != apiserverv1.AudienceMatchPolicyMatchAny:
		errs = append(errs, field.Invalid(policyPath, policy, "audienceMatchPolicy must be MatchAny for multiple audiences"))
	case len(auds) == 1 && policy != "" && policy != apiserverv1.AudienceMatchPolicyMatchAny:
		errs = append(errs, field.Invalid(policyPath, policy, "audienceMatchPolicy must be empty or MatchAny for single audience"))
	}
	return errs
}

func (c *Compiled) compileClaimRules(envs *celEnvs, st *emailState, rules []apiserverv1.ClaimValidationRule, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seenClaims, seenExprs := sets.New[string](), sets.New[string]()
	for i, r := range rules {
		p := fldPath.Index(i)
		switch {
		case r.Claim != "" && r.Expression != "":
			errs = append(errs, field.Invalid(p, r.Claim, "claim and expression can't both be set"))
		case r.Claim == "" && r.Expression == "":
			errs = append(errs, field.Required(p, "claim or expression is required"))
		case r.Claim != "":
			if r.Message != "" {
				errs = append(errs, field.Invalid(p.Child("message"), r.Message, "may not be specified when claim is set"))
			}
			if seenClaims.Has(r.Claim) {
				errs = append(errs, field.Duplicate(p.Child("claim"), r.Claim))
			}
			seenClaims.Insert(r.Claim)
			c.required = append(c.required, requiredClaim{claim: r.Claim, value: r.RequiredValue})
		default:
			if r.RequiredValue != "" {
				errs = append(errs, field.Invalid(p.Child("requiredValue"), r.RequiredValue, "may not be specified when expression is set"))
			}
			if seenExprs.Has(r.Expression) {
				errs = append(errs, field.Duplicate(p.Child("expression"), r.Expression))
				continue
			}
			seenExprs.Insert(r.Expression)
			prog, err := compileExpr(envs.claims, r.Expression, resultBool)
			if err != nil {
				errs = append(errs, field.Invalid(p.Child("expression"), r.Expression, err.Error()))
				continue
			}
			st.usesEmailVerified = st.usesEmailVerified || usesClaim(prog.ast, "email_verified")
			c.claimRules = append(c.claimRules, rule{p: prog, message: r.Message})
		}
	}
	return errs
}

func (c *Compiled) compileMappings(envs *celEnvs, st *emailState, m apiserverv1.ClaimMappings, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList

	var e field.ErrorList
	c.username, e = compilePrefixed(envs, m.Username, fldPath.Child("username"), true, resultString)
	errs = append(errs, e...)
	if c.username.p != nil {
		st.usesEmail = usesClaim(c.username.p.ast, "email")
		st.usesEmailVerified = st.usesEmailVerified || usesClaim(c.username.p.ast, "email_verified")
	}

	c.groups, e = compilePrefixed(envs, m.Groups, fldPath.Child("groups"), false, resultStringList)
	errs = append(errs, e...)

	uidPath := fldPath.Child("uid")
	switch {
	case m.UID.Claim != "" && m.UID.Expression != "":
		errs = append(errs, field.Invalid(uidPath, "", "claim and expression can't both be set"))
	case m.UID.Claim != "":
		c.uid = mapping{claim: m.UID.Claim}
	case m.UID.Expression != "":
		prog, err := compileExpr(envs.claims, m.UID.Expression, resultString)
		if err != nil {
			errs = append(errs, field.Invalid(uidPath.Child("expression"), m.UID.Expression, err.Error()))
		} else {
			c.uid = mapping{p: prog}
		}
	}

	seenKeys := sets.New[string]()
	for i, x := range m.Extra {
		p := fldPath.Child("extra").Index(i)
		keyPath := p.Child("key")
		// Keys are namespaced by a domain so that authenticators and
		// authorizers do not collide.
		errs = append(errs, utilvalidation.IsDomainPrefixedPath(keyPath, x.Key)...)
		if x.Key != strings.ToLower(x.Key) {
			errs = append(errs, field.Invalid(keyPath, x.Key, "must be lowercase"))
		}
		if isKubernetesDomain(x.Key) {
			errs = append(errs, field.Invalid(keyPath, x.Key, "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use"))
		}
		if seenKeys.Has(x.Key) {
			errs = append(errs, field.Duplicate(keyPath, x.Key))
			continue
		}
		seenKeys.Insert(x.Key)
		if x.ValueExpression == "" {
			errs = append(errs, field.Required(p.Child("valueExpression"), ""))
			continue
		}
		prog, err := compileExpr(envs.claims, x.ValueExpression, resultStringList)
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("valueExpression"), x.ValueExpression, err.Error()))
			continue
		}
		st.usesEmailVerified = st.usesEmailVerified || usesClaim(prog.ast, "email_verified")
		c.extra = append(c.extra, extraMapping{key: x.Key, p: prog})
	}

	if st.usesEmail && !st.usesEmailVerified {
		errs = append(errs, field.Invalid(fldPath.Child("username", "expression"), m.Username.Expression,
			"claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression"))
	}
	return errs
}

func compilePrefixed(envs *celEnvs, m apiserverv1.PrefixedClaimOrExpression, fldPath *field.Path, required bool, want resultKind) (mapping, field.ErrorList) {
	switch {
	case m.Expression != "" && m.Claim != "":
		return mapping{}, field.ErrorList{field.Invalid(fldPath, "", "claim and expression can't both be set")}
	case m.Expression == "" && m.Claim == "":
		if required {
			return mapping{}, field.ErrorList{field.Required(fldPath, "claim or expression is required")}
		}
		return mapping{}, nil
	case m.Expression != "":
		var errs field.ErrorList
		if m.Prefix != nil {
			errs = append(errs, field.Invalid(fldPath.Child("prefix"), *m.Prefix, "may not be specified when expression is set"))
		}
		prog, err := compileExpr(envs.claims, m.Expression, want)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Child("expression"), m.Expression, err.Error()))
		}
		return mapping{p: prog}, errs
	default:
		if m.Prefix == nil {
			return mapping{}, field.ErrorList{field.Required(fldPath.Child("prefix"),
				"prefix is required when claim is set. It can be set to an empty string to disable prefixing")}
		}
		return mapping{claim: m.Claim, prefix: *m.Prefix}, nil
	}
}

func (c *Compiled) compileUserRules(envs *celEnvs, rules []apiserverv1.UserValidationRule, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, r := range rules {
		p := fldPath.Index(i).Child("expression")
		if r.Expression == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		if seen.Has(r.Expression) {
			errs = append(errs, field.Duplicate(p, r.Expression))
			continue
		}
		seen.Insert(r.Expression)
		prog, err := compileExpr(envs.user, r.Expression, resultBool)
		if err != nil {
			errs = append(errs, field.Invalid(p, r.Expression, err.Error()))
			continue
		}
		c.userRules = append(c.userRules, rule{p: prog, message: r.Message})
	}
	return errs
}

func isKubernetesDomain(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, reserved := range []string{"kubernetes.io", "k8s.io"} {
		if domain == reserved || strings.HasSuffix(domain, "."+reserved) {
			return true
		}
	}
	return false
}
