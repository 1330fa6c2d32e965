package webhookclient

import "errors"

// ErrNoServiceResolver is the reason a service clientConfig fails when no
// ServiceResolver was configured.
var ErrNoServiceResolver = errors.New("webhook clientConfig.service is not supported: no service resolver configured")

// ErrBadClientConfig reports a clientConfig that can not be called.
var ErrBadClientConfig = errors.New("invalid webhook clientConfig")

// ErrResponseTooLarge is the reason a response body over
// MaxResponseBytes fails the call.
var ErrResponseTooLarge = errors.New("webhook response body too large")
