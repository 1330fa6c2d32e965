package openapi

import "errors"

var (
	// ErrInvalidResource is returned by New for a Resource that cannot be
	// published: missing names, an unknown verb, a duplicate.
	ErrInvalidResource = errors.New("invalid resource")
	// ErrUnknownKind is returned by New when the scheme has no Go type for a
	// resource's kind or list kind.
	ErrUnknownKind = errors.New("kind not registered in scheme")
	// ErrUnsupportedType is returned by New when a Go type reachable from a
	// served kind has no JSON schema (channels, functions, complex numbers,
	// maps with non-string keys).
	ErrUnsupportedType = errors.New("go type has no OpenAPI schema")
	// ErrBuild is wrapped around failures while rendering the documents on
	// first use.
	ErrBuild = errors.New("building OpenAPI documents")
)
