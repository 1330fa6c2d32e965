package serviceaccount

import (
	"errors"
	"fmt"
)

// Key loading errors.
var (
	ErrUnsupportedKey = errors.New("unsupported key type: must be RSA or ECDSA (P-256, P-384 or P-521)")
	ErrKeyMismatch    = errors.New("public key does not match the private key")
	ErrNoDataDir      = errors.New("no data directory to generate the service account key in")
)

// Configuration and request errors.
var (
	ErrInvalidConfig     = errors.New("invalid service account configuration")
	ErrInvalidRequest    = errors.New("invalid service account token request")
	ErrInvalidExpiration = errors.New("invalid service account token expiration")
)

// Verification errors. Each rejected token's error wraps one of them; the
// message itself is kube-apiserver's, which TokenReview shows to users.
var (
	ErrMalformedToken        = errors.New("malformed service account token")
	ErrInvalidSignature      = errors.New("invalid signature")
	ErrInvalidIssuer         = errors.New("invalid issuer")
	ErrInvalidAudience       = errors.New("invalid audience")
	ErrExpired               = errors.New("service account token has expired")
	ErrNotValidYet           = errors.New("service account token is not valid yet")
	ErrIssuedInTheFuture     = errors.New("service account token is issued in the future")
	ErrMissingClaims         = errors.New("missing or invalid service account claims")
	ErrServiceAccountDeleted = errors.New("service account has been deleted")
	ErrUIDMismatch           = errors.New("UID does not match claim")
	ErrInvalidated           = errors.New("service account token has been invalidated")
	ErrLegacyTokenMismatch   = errors.New("legacy token does not match the server's copy")
	ErrLegacyTokenInvalid    = errors.New("legacy token has been marked invalid")
)

// tokenError carries kube-apiserver's exact message while still matching
// its sentinel with errors.Is.
type tokenError struct {
	kind error
	msg  string
}

func (e *tokenError) Error() string { return e.msg }
func (e *tokenError) Unwrap() error { return e.kind }

func rejected(kind error, format string, args ...any) error {
	return &tokenError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
