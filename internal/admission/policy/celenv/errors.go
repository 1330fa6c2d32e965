package celenv

import "errors"

// ErrNotCompiled is returned for operations on an expression that failed
// to compile.
var ErrNotCompiled = errors.New("not compiled")
