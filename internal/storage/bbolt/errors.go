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

	// ErrEmptyFile refuses a file of 0 bytes: Open creates a store whole,
	// so an empty file is not one it left, and its data, if it had any, is
	// gone. Remove the file to start an empty store.
	ErrEmptyFile = errors.New("bbolt store: empty file")
	// ErrNotBolt refuses a file that is not a bbolt file at all.
	ErrNotBolt = errors.New("bbolt store: not a bbolt file")
	// ErrNotStore refuses a bbolt file that does not hold a store.
	ErrNotStore = errors.New("bbolt store: not a portcullis store")
	// ErrDamaged reports a damaged bbolt file: truncated, both meta pages
	// unreadable, or a page that is garbled or out of place. Open refuses
	// such a file; a read or write that meets a damaged page while serving
	// fails with it instead of crashing the process.
	ErrDamaged = errors.New("bbolt store: damaged file")
)
