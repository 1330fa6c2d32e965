package serviceaccount

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

// leeway is go-jose's default that kube-apiserver applies to exp, nbf
// and iat, and to deletion timestamps of bound objects.
const leeway = time.Minute

// signatureAlgorithms are the asymmetric algorithms a token may name.
// Leaving out "none" and the HMAC family is what stops a token "signed"
// with nothing, or with our public key as an HMAC secret.
var signatureAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
}

// Authenticator verifies service account tokens. It implements
// authn.Token.
type Authenticator struct {
	issuers      map[string]bool
	apiAudiences []string
	keys         []PublicKey
	byKeyID      map[string][]PublicKey
	getter       Getter
	legacy       bool

	now func() time.Time
}

var _ authn.Token = (*Authenticator)(nil)

// Result is a verified token.
type Result struct {
	User user.Info
	// Audiences are the token's audiences that were asked for (a
	// TokenReview's status.audiences).
	Audiences []string
	// Expiry is the token's "exp"; zero for legacy tokens, which never
	// expire. A cache must not keep the result past it.
	Expiry time.Time
}

// NewAuthenticator verifies tokens of cfg.Issuers (and legacy tokens when
// cfg.Legacy) against keys.Verifying, looking bound objects up in getter.
func NewAuthenticator(keys *Keys, cfg Config, getter Getter) (*Authenticator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if keys == nil || len(keys.Verifying) == 0 {
		return nil, fmt.Errorf("%w: no verification keys", ErrInvalidConfig)
	}
	if getter == nil {
		return nil, fmt.Errorf("%w: no getter for service accounts", ErrInvalidConfig)
	}
	a := &Authenticator{
		issuers:      map[string]bool{},
		apiAudiences: cfg.apiAudiences(),
		keys:         slices.Clone(keys.Verifying),
		byKeyID:      map[string][]PublicKey{},
		getter:       getter,
		legacy:       cfg.Legacy,
		now:          time.Now,
	}
	for _, iss := range cfg.Issuers {
		a.issuers[iss] = true
	}
	for _, k := range a.keys {
		a.byKeyID[k.KeyID] = append(a.byKeyID[k.KeyID], k)
	}
	return a, nil
}

// AuthenticateToken implements authn.Token. Tokens that do not name one of
// our issuers are not recognised, so that other authenticators may try.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	r, ok, err := a.Verify(ctx, token)
	if !ok {
		return nil, false, err
	}
	return r.User, true, nil
}

// Verify is AuthenticateToken with the audiences and expiry of the token.
func (a *Authenticator) Verify(ctx context.Context, token string) (*Result, bool, error) {
	iss, ok := peekIssuer(token)
	if !ok {
		return nil, false, nil
	}
	legacy := a.legacy && iss == LegacyIssuer
	if !legacy && !a.issuers[iss] {
		return nil, false, nil
	}
	payload, err := a.verifySignature(token)
	var r *Result
	switch {
	case err != nil:
	case legacy:
		r, err = a.verifyLegacy(ctx, token, payload)
	default:
		r, err = a.verifyBound(ctx, payload)
	}
	if err != nil {
		return nil, false, err
	}
	return r, true, nil
}

// peekIssuer reads "iss" from a compact JWS without verifying anything,
// only to decide whether the token is ours to judge.
func peekIssuer(token string) (string, bool) {
	header, rest, ok := strings.Cut(token, ".")
	if !ok || strings.HasPrefix(strings.TrimSpace(header), "{") {
		return "", false
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(sig, ".") {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return "", false
	}
	var c struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return "", false
	}
	return c.Issuer, true
}

// verifySignature returns the payload once a key verifies it: the keys
// with the token's key ID, or every key when it names none.
func (a *Authenticator) verifySignature(token string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(token, signatureAlgorithms)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedToken, err)
	}
	keys := a.keys
	if kid := jws.Signatures[0].Header.KeyID; kid != "" {
		keys = a.byKeyID[kid]
	}
	if len(keys) == 0 {
		return nil, rejected(ErrInvalidSignature, "invalid signature, no keys found")
	}
	var errs []error
	for _, k := range keys {
		payload, err := jws.Verify(k.Key)
		if err == nil {
			return payload, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("%w: %w", ErrInvalidSignature, errors.Join(errs...))
}

func (a *Authenticator) verifyBound(ctx context.Context, payload []byte) (*Result, error) {
	var c boundClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedToken, err)
	}
	if !a.issuers[c.Issuer] {
		return nil, rejected(ErrInvalidIssuer, "token issuer %q is invalid", c.Issuer)
	}
	auds, err := a.audiences(ctx, c.Audience)
	if err != nil {
		return nil, err
	}
	now := a.now()
	if err := checkTime(&c, now); err != nil {
		return nil, err
	}
	pc := c.Kubernetes
	if pc == nil || pc.Namespace == "" || pc.ServiceAccount.Name == "" {
		return nil, rejected(ErrMissingClaims, "service account token has no namespace or service account claim")
	}
	id, err := a.checkBound(ctx, pc, now)
	if err != nil {
		return nil, err
	}
	id.CredentialID = CredentialID(c.ID)
	return &Result{User: id.userInfo(), Audiences: auds, Expiry: c.Expiry.Time()}, nil
}

// audiences intersects the token's audiences (the API audiences when it
// has none, as legacy tokens) with those asked for (the API audiences
// unless a TokenReview names others).
func (a *Authenticator) audiences(ctx context.Context, token []string) ([]string, error) {
	if len(token) == 0 {
		token = a.apiAudiences
	}
	want := authn.AudiencesFrom(ctx)
	if len(want) == 0 {
		want = a.apiAudiences
	}
	var both []string
	for _, t := range token {
		if slices.Contains(want, t) {
			both = append(both, t)
		}
	}
	if len(both) == 0 && len(a.apiAudiences) != 0 {
		return nil, rejected(ErrInvalidAudience, "token audiences %q is invalid for the target audiences %q", token, want)
	}
	return both, nil
}

func checkTime(c *boundClaims, now time.Time) error {
	switch {
	case c.NotBefore != nil && now.Add(leeway).Before(c.NotBefore.Time()):
		return ErrNotValidYet
	case c.Expiry != nil && now.Add(-leeway).After(c.Expiry.Time()):
		return ErrExpired
	case c.IssuedAt != nil && now.Add(leeway).Before(c.IssuedAt.Time()):
		return ErrIssuedInTheFuture
	}
	return nil
}
