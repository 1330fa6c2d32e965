package authnconfig

import "errors"

var (
	// ErrEmpty: the file has no content.
	ErrEmpty = errors.New("empty config data")
	// ErrDecode: the file is not a well-formed AuthenticationConfiguration
	// (syntax, apiVersion, kind, unknown or duplicate fields).
	ErrDecode = errors.New("decoding authentication configuration")
	// ErrInvalid: the configuration breaks a validation rule; the wrapped
	// error lists every problem with its field path.
	ErrInvalid = errors.New("invalid authentication configuration")
	// ErrAnonymousChanged: a reloaded file changed the anonymous field,
	// which only takes effect at start-up (as in kube-apiserver).
	ErrAnonymousChanged = errors.New("anonymous: Forbidden: changed from initial configuration file")
)
