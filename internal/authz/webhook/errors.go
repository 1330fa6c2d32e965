package webhook

import "errors"

// Errors of the webhook authorizer, wrapped with detail; match them with
// errors.Is.
var (
	// ErrConfig: the authorizer could not be constructed (kubeconfig
	// missing or invalid, unknown SubjectAccessReview version, bad
	// failure policy).
	ErrConfig = errors.New("webhook authorizer: invalid configuration")
	// ErrRequest: the webhook could not be reached, timed out or answered
	// with an HTTP error status.
	ErrRequest = errors.New("webhook authorizer: request failed")
	// ErrResponse: the webhook answered 2xx with a body that is not a
	// SubjectAccessReview (undecodable, wrong kind, too large).
	ErrResponse = errors.New("webhook authorizer: malformed response")
	// ErrAllowedAndDenied: the review answered both allowed and denied;
	// the request is denied.
	ErrAllowedAndDenied = errors.New("webhook subject access review returned both allow and deny response")
	// ErrMatchCondition: a match condition failed to evaluate; the
	// failure policy decides.
	ErrMatchCondition = errors.New("webhook authorizer: match condition evaluation failed")
	// ErrRulesNotSupported: a webhook cannot list the rules of a user
	// (SelfSubjectRulesReview); its answer is incomplete.
	ErrRulesNotSupported = errors.New("webhook authorizer does not support user rule resolution")
)

// markedError carries the text of err unchanged (it ends up in responses
// and logs, where kube-apiserver's wording is expected) while matching
// the sentinel with errors.Is.
type markedError struct {
	sentinel error
	err      error
}

func (e *markedError) Error() string   { return e.err.Error() }
func (e *markedError) Unwrap() []error { return []error{e.sentinel, e.err} }

func mark(sentinel, err error) error { return &markedError{sentinel: sentinel, err: err} }
