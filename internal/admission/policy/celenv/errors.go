package celenv

import "errors"

// ErrEnvironment reports that a CEL environment could not be built, which
// only a programming error can cause.
var ErrEnvironment = errors.New("environment misconfigured")

// ErrNotCompiled is returned for operations on an expression that failed
// to compile.
var ErrNotCompiled = errors.New("not compiled")
