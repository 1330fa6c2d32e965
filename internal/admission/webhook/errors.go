package webhook

import (
	"errors"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

// ErrCredentialNotSupported reports a kubeconfig user portcullis can not
// present to a webhook (exec plugins, auth providers, impersonation).
var ErrCredentialNotSupported = errors.New("webhook credential not supported")

// ErrNoServiceResolver is the reason a service clientConfig fails when no
// ServiceResolver was configured.
var ErrNoServiceResolver = webhookclient.ErrNoServiceResolver

// ErrBadClientConfig reports a clientConfig that can not be called.
var ErrBadClientConfig = webhookclient.ErrBadClientConfig

// ErrResponseTooLarge is the reason a response body over
// webhookclient.MaxResponseBytes fails the call.
var ErrResponseTooLarge = webhookclient.ErrResponseTooLarge
