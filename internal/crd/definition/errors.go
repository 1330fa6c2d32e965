package definition

import "errors"

var (
	// ErrNilDefinition is reported (inside a field.InternalError) for a nil
	// definition.
	ErrNilDefinition = errors.New("definition: nil CustomResourceDefinition")
	// ErrConversion is reported (inside a field.InternalError) when a v1
	// definition cannot be converted to the internal type, which only a
	// default or example holding bytes that are not JSON can cause.
	ErrConversion = errors.New("definition: converting to the internal type")
)
