package jwt

import "errors"

// Errors returned for tokens this package recognised (their issuer is
// configured) but could not accept. They are wrapped with detail; match
// them with errors.Is.
var (
	// ErrNotReady: the issuer's discovery document or keys have not been
	// fetched yet (the issuer was unreachable); the fetch is retried in the
	// background.
	ErrNotReady = errors.New("jwt: authenticator not initialized")
	// ErrTokenTooLarge: the token is longer than the configured limit and
	// was rejected before any parsing.
	ErrTokenTooLarge = errors.New("jwt: token too large")
	// ErrMalformed: the token is not a well-formed compact JWS with a JSON
	// payload.
	ErrMalformed = errors.New("jwt: malformed token")
	// ErrSignature: no key of the issuer verifies the signature, or the
	// algorithm is not an allowed asymmetric one.
	ErrSignature = errors.New("jwt: invalid signature")
	// ErrIssuer: the iss claim is not the configured issuer URL.
	ErrIssuer = errors.New("jwt: wrong issuer")
	// ErrAudience: no aud entry matches the configured audiences.
	ErrAudience = errors.New("jwt: wrong audience")
	// ErrExpired: exp is missing or in the past.
	ErrExpired = errors.New("jwt: token is expired")
	// ErrNotYetValid: nbf is in the future (beyond the leeway).
	ErrNotYetValid = errors.New("jwt: token is not valid yet")
	// ErrClaimValidation: a claimValidationRule rejected the claims.
	ErrClaimValidation = errors.New("jwt: claim validation failed")
	// ErrClaimMapping: a claim mapping could not produce the user
	// attribute (missing or mistyped claim, expression error).
	ErrClaimMapping = errors.New("jwt: claim mapping failed")
	// ErrEmailNotVerified: username comes from the email claim and
	// email_verified is present but not true.
	ErrEmailNotVerified = errors.New("jwt: email not verified")
	// ErrUserValidation: a userValidationRule rejected the mapped user.
	ErrUserValidation = errors.New("jwt: user validation failed")
	// ErrDistributedClaims: a distributed claim could not be resolved.
	ErrDistributedClaims = errors.New("jwt: could not resolve distributed claims")
	// ErrDiscovery: the discovery document could not be fetched or is
	// not acceptable.
	ErrDiscovery = errors.New("jwt: discovery failed")
	// ErrKeySet: the JWKS could not be fetched or holds no usable key.
	ErrKeySet = errors.New("jwt: key set fetch failed")
)
