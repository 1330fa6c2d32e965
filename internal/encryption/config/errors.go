package config

import "errors"

var (
	// ErrEmpty: the file has no content (or only white space).
	ErrEmpty = errors.New("encryption provider configuration is empty")
	// ErrDecode: the file is not a well-formed EncryptionConfiguration
	// (syntax, apiVersion, kind, unknown or duplicate fields, wrong types).
	ErrDecode = errors.New("error decoding encryption provider configuration")
	// ErrInvalid: the configuration breaks a rule; the wrapped error lists
	// every problem with its field path.
	ErrInvalid = errors.New("invalid encryption provider configuration")
)
