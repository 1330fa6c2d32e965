package cel

import "errors"

// ErrEnvironment reports that a CEL environment could not be built, which
// only a programming error (a conflicting declaration) can cause.
var ErrEnvironment = errors.New("environment misconfigured")
