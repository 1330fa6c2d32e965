package cache

import "errors"

// ErrAuthenticatorPanic is returned when the authenticator behind the
// cache panicked; the panic is not cached.
var ErrAuthenticatorPanic = errors.New("authentication failed unexpectedly")
