package jwt

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// looksLikeJWT is a cheap shape test: three dot-separated parts and a
// JSON object header. It never decodes the payload.
func looksLikeJWT(token string) bool {
	return strings.Count(token, ".") == 2 && strings.HasPrefix(token, "eyJ")
}

// untrustedIssuer returns the iss claim of a compact JWT without
// verifying anything, to route the token to its issuer's authenticator.
// ok is false when the token is not a compact JWT at all.
func untrustedIssuer(token string) (iss string, ok bool) {
	if !looksLikeJWT(token) {
		return "", false
	}
	_, rest, _ := strings.Cut(token, ".")
	payload, _, _ := strings.Cut(rest, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return "", false
	}
	var c struct {
		// WARNING: not verified; used only to pick the authenticator.
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", false
	}
	return normalizeIssuer(c.Issuer), true
}

// normalizeIssuer folds Google's legacy issuer into its URL form, as
// OpenID Connect Core 1.0 section 15.6.2 allows.
func normalizeIssuer(iss string) string {
	if iss == "accounts.google.com" {
		return "https://accounts.google.com"
	}
	return iss
}

// claims is a verified payload.
type claims map[string]any

func decodeClaims(payload []byte) (claims, error) {
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("%w: payload: %w", ErrMalformed, err)
	}
	if c == nil {
		return nil, fmt.Errorf("%w: payload is not a JSON object", ErrMalformed)
	}
	return c, nil
}

// stringClaim returns a claim that must be a string.
func (c claims) stringClaim(name string) (string, error) {
	v, ok := c[name]
	if !ok {
		return "", fmt.Errorf("claim %q not present", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("claim %q is not a string", name)
	}
	return s, nil
}

// audiences returns aud as a list: it may be a string or an array.
func (c claims) audiences() ([]string, error) {
	switch v := c["aud"].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, a := range v {
			s, ok := a.(string)
			if !ok {
				return nil, fmt.Errorf("%w: aud holds a non-string", ErrMalformed)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: aud is neither a string nor an array", ErrMalformed)
}

// numericDate returns a NumericDate claim; ok is false when absent.
func (c claims) numericDate(name string) (time.Time, bool, error) {
	v, present := c[name]
	if !present || v == nil {
		return time.Time{}, false, nil
	}
	f, isNum := v.(float64)
	if !isNum || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e15 {
		return time.Time{}, false, fmt.Errorf("%w: %s is not a valid NumericDate", ErrMalformed, name)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true, nil
}

// checkTimes applies exp (required, no leeway) and nbf (with leeway for
// clock skew) as kube-apiserver's go-oidc verifier does: a token is expired
// once exp is before now, and iat is not checked at all (a token issued
// "in the future" is accepted).
func (c claims) checkTimes(now time.Time, leeway time.Duration) error {
	exp, ok, err := c.numericDate("exp")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no exp claim", ErrExpired)
	}
	if exp.Before(now) {
		return fmt.Errorf("%w: expired at %s", ErrExpired, exp.UTC().Format(time.RFC3339))
	}
	nbf, ok, err := c.numericDate("nbf")
	if err != nil {
		return err
	}
	if ok && nbf.After(now.Add(leeway)) {
		return fmt.Errorf("%w: not before %s", ErrNotYetValid, nbf.UTC().Format(time.RFC3339))
	}
	return nil
}
