package etcd

import "errors"

// Errors of this backend beyond the storage sentinels.
var (
	// ErrInvalidArgument rejects malformed options of a call (a negative
	// revision or limit).
	ErrInvalidArgument = errors.New("etcd store: invalid argument")
	// ErrInvalidConfig rejects a Config that Open cannot use; the wrapping
	// error names every problem with its field.
	ErrInvalidConfig = errors.New("etcd store: invalid configuration")
	// ErrWatchEnded is the EventError of a watch that etcd or the client
	// ended for a reason without a storage sentinel (lost leader, closed
	// client); the wrapped error says which.
	ErrWatchEnded = errors.New("etcd store: watch ended by etcd")
)
