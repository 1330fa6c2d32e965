package jwt

import (
	"context"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"k8s.io/apiserver/pkg/authentication/user"
)

// mapUser runs the claim validation rules, the claim mappings and the
// user validation rules over verified claims.
func (a *Authenticator) mapUser(ctx context.Context, c claims) (user.Info, error) {
	c0 := a.c
	for _, r := range c0.required {
		v, ok := c[r.claim]
		if !ok {
			return nil, fmt.Errorf("%w: required claim %s not present in ID token", ErrClaimValidation, r.claim)
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%w: required claim %s is not a string", ErrClaimValidation, r.claim)
		}
		if s != r.value {
			return nil, fmt.Errorf("%w: required claim %s value does not match. Got = %s, want = %s", ErrClaimValidation, r.claim, s, r.value)
		}
	}

	var cv ref.Val
	if a.usesCEL {
		cv = claimsValue(c)
	}
	for _, r := range c0.claimRules {
		if err := checkRule(ctx, r, claimsVar, cv); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrClaimValidation, err)
		}
	}

	info := &user.DefaultInfo{}
	var err error
	if info.Name, err = a.username(ctx, c, cv); err != nil {
		return nil, err
	}
	if info.Groups, err = a.groups(ctx, c, cv); err != nil {
		return nil, err
	}
	if info.UID, err = a.uid(ctx, c, cv); err != nil {
		return nil, err
	}
	if info.Extra, err = a.extra(ctx, c, cv); err != nil {
		return nil, err
	}

	if len(c0.userRules) > 0 {
		uv := userValue(info.Name, info.UID, info.Groups, info.Extra)
		for _, r := range c0.userRules {
			if err := checkRule(ctx, r, userVar, uv); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrUserValidation, err)
			}
		}
	}
	return info, nil
}

// checkRule evaluates a validation rule, which must return true.
func checkRule(ctx context.Context, r rule, name string, v ref.Val) error {
	out, err := r.p.eval(ctx, name, v)
	if err != nil {
		return fmt.Errorf("error evaluating validation expression '%s': %w", r.p.expr, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return fmt.Errorf("validation expression '%s' must return a boolean", r.p.expr)
	}
	if !b {
		return fmt.Errorf("validation expression '%s' failed: %s", r.p.expr, r.message)
	}
	return nil
}

func (a *Authenticator) username(ctx context.Context, c claims, cv ref.Val) (string, error) {
	m := a.c.username
	if m.p != nil {
		out, err := m.p.eval(ctx, claimsVar, cv)
		if err != nil {
			return "", fmt.Errorf("%w: error evaluating username claim expression: %w", ErrClaimMapping, err)
		}
		name, ok := asString(out)
		if !ok {
			return "", fmt.Errorf("%w: username claim expression must return a string", ErrClaimMapping)
		}
		if name == "" {
			return "", fmt.Errorf("%w: empty username via CEL expression is not allowed", ErrClaimMapping)
		}
		return name, nil
	}
	name, err := c.stringClaim(m.claim)
	if err != nil {
		return "", fmt.Errorf("%w: parse username claim: %w", ErrClaimMapping, err)
	}
	if m.claim == "email" {
		// OpenID Connect: an email that the provider says is unverified
		// must not name a user. An absent email_verified is accepted.
		if v, present := c["email_verified"]; present {
			ok, isBool := v.(bool)
			if !isBool {
				return "", fmt.Errorf("%w: email_verified claim is not a boolean", ErrEmailNotVerified)
			}
			if !ok {
				return "", ErrEmailNotVerified
			}
		}
	}
	// An empty claim is accepted, as kube-apiserver accepts it: the user
	// is then named by the prefix alone (or has an empty name).
	return m.prefix + name, nil
}

func (a *Authenticator) groups(ctx context.Context, c claims, cv ref.Val) ([]string, error) {
	m := a.c.groups
	switch {
	case m.claim != "":
		v, present := c[m.claim]
		if !present {
			return nil, nil
		}
		// A single string is accepted too: some providers put one role in
		// a string claim.
		var groups []string
		switch t := v.(type) {
		case nil:
		case string:
			groups = []string{t}
		case []any:
			for _, g := range t {
				s, ok := g.(string)
				if !ok {
					return nil, fmt.Errorf("%w: parse groups claim %q: not a string or an array of strings", ErrClaimMapping, m.claim)
				}
				groups = append(groups, s)
			}
		default:
			return nil, fmt.Errorf("%w: parse groups claim %q: not a string or an array of strings", ErrClaimMapping, m.claim)
		}
		out := groups[:0]
		for _, g := range groups {
			if g != "" { // "", [] and null mean no group
				out = append(out, m.prefix+g)
			}
		}
		if len(out) == 0 {
			return nil, nil
		}
		return out, nil
	case m.p != nil:
		v, err := m.p.eval(ctx, claimsVar, cv)
		if err != nil {
			return nil, fmt.Errorf("%w: error evaluating group claim expression: %w", ErrClaimMapping, err)
		}
		groups, err := asStringList(v)
		if err != nil {
			return nil, fmt.Errorf("%w: error evaluating group claim expression: %w", ErrClaimMapping, err)
		}
		return groups, nil
	}
	return nil, nil
}

func (a *Authenticator) uid(ctx context.Context, c claims, cv ref.Val) (string, error) {
	m := a.c.uid
	switch {
	case m.claim != "":
		uid, err := c.stringClaim(m.claim)
		if err != nil {
			return "", fmt.Errorf("%w: parse uid claim: %w", ErrClaimMapping, err)
		}
		return uid, nil
	case m.p != nil:
		v, err := m.p.eval(ctx, claimsVar, cv)
		if err != nil {
			return "", fmt.Errorf("%w: error evaluating uid claim expression: %w", ErrClaimMapping, err)
		}
		uid, ok := asString(v)
		if !ok {
			return "", fmt.Errorf("%w: uid claim expression must return a string", ErrClaimMapping)
		}
		return uid, nil
	}
	return "", nil
}

func (a *Authenticator) extra(ctx context.Context, c claims, cv ref.Val) (map[string][]string, error) {
	var extra map[string][]string
	// The token's jti identifies the credential in audit logs, as
	// kube-apiserver records it.
	if jti, ok := c["jti"].(string); ok && jti != "" {
		extra = map[string][]string{user.CredentialIDKey: {"JTI=" + jti}}
	}
	for _, x := range a.c.extra {
		v, err := x.p.eval(ctx, claimsVar, cv)
		if err != nil {
			return nil, fmt.Errorf("%w: error evaluating extra claim expression: %s: %w", ErrClaimMapping, x.p.expr, err)
		}
		values, err := asStringList(v)
		if err != nil {
			return nil, fmt.Errorf("%w: error evaluating extra claim expression: %s: %w", ErrClaimMapping, x.p.expr, err)
		}
		if len(values) == 0 {
			continue
		}
		if extra == nil {
			extra = map[string][]string{}
		}
		extra[x.key] = values
	}
	return extra, nil
}
