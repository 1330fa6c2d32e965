package resourcequota

import "errors"

// ErrConfig marks a configuration that cannot be used.
var ErrConfig = errors.New("resourcequota: invalid configuration")
