package validation

import "errors"

var (
	// ErrUnsupportedType is reported (inside a field.InternalError) for an
	// object whose type this package has no validator for.
	ErrUnsupportedType = errors.New("validation: unsupported type")
	// ErrTypeMismatch is reported when Update is given objects of two types.
	ErrTypeMismatch = errors.New("validation: old and new objects differ in type")
	// ErrNilObject is reported for a nil object.
	ErrNilObject = errors.New("validation: nil object")
)
