package memory

import "errors"

// ErrInvalidArgument rejects malformed options of a call (a negative
// revision or limit), as the other backends do.
var ErrInvalidArgument = errors.New("memory store: invalid argument")
