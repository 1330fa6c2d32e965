package noderestriction

import "errors"

var (
	// ErrNoGetter is returned by New without a Getter: the plugin cannot
	// decide deletions, evictions or token requests without stored objects.
	ErrNoGetter = errors.New("NodeRestriction needs a getter of stored objects")
	// ErrNotSupported is returned by a GetterFuncs lookup whose function is
	// unset.
	ErrNotSupported = errors.New("lookup not supported")
)
