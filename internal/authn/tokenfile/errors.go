package tokenfile

import "errors"

// ErrTooFewColumns: a record has fewer than token, user name and uid.
var ErrTooFewColumns = errors.New("too few columns")
