package bbolt

import "errors"

// Errors of this backend beyond the storage sentinels.
var (
	// ErrCorrupt reports stored bytes that do not decode or that break an
	// invariant of the layout.
	ErrCorrupt = errors.New("bbolt store: corrupt data")
	// ErrInvalidKey rejects keys that cannot be stored (empty or too long).
	ErrInvalidKey = errors.New("bbolt store: invalid key")
	// ErrValueTooLarge rejects values above Options.MaxValueSize.
	ErrValueTooLarge = errors.New("bbolt store: value too large")
	// ErrInvalidArgument rejects malformed options of a call.
	ErrInvalidArgument = errors.New("bbolt store: invalid argument")
	// ErrUnsupportedFormat means the file was written by an incompatible version.
	ErrUnsupportedFormat = errors.New("bbolt store: unsupported data format")
)
