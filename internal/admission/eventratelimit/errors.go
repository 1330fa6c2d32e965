package eventratelimit

import "errors"

// ErrConfig marks a configuration that cannot be decoded.
var ErrConfig = errors.New("EventRateLimit configuration")
