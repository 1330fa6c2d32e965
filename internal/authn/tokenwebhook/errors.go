package tokenwebhook

import "errors"

// Errors of the webhook token authenticator, matched with errors.Is. The
// texts that reach clients and logs are kube-apiserver's: the sentinels
// mark them without changing their wording.
var (
	// ErrConfig: the authenticator could not be constructed (kubeconfig
	// missing or invalid, unknown TokenReview version, bad backoff).
	ErrConfig = errors.New("webhook token authenticator: invalid configuration")
	// ErrWebhook: the webhook could not be reached, timed out, answered
	// with an HTTP error status or with a body that is not a TokenReview.
	ErrWebhook = errors.New("webhook token authenticator: request failed")
	// ErrRejected: the webhook did not authenticate the token and said
	// why in status.error, which is the error's text.
	ErrRejected = errors.New("webhook token authenticator: token rejected")
	// ErrCrashed: the authentication panicked; the error reads as
	// kube-apiserver's internal error for it.
	ErrCrashed = errors.New("webhook token authenticator: panic")
)

// markedError carries the text of err unchanged while matching the
// sentinel with errors.Is.
type markedError struct {
	sentinel error
	err      error
}

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.sentinel, e.err} }

func mark(sentinel, err error) error { return &markedError{sentinel: sentinel, err: err} }
