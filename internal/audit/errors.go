package audit

import "errors"

var (
	// ErrPolicyDecode is returned when a policy file is not a well-formed
	// audit.k8s.io/v1 Policy (syntax, unknown or duplicate fields, wrong kind).
	ErrPolicyDecode = errors.New("audit: cannot decode policy")
	// ErrPolicyInvalid is returned when a policy decodes but fails validation.
	ErrPolicyInvalid = errors.New("audit: invalid policy")
	// ErrLoggerClosed is returned by writes to a Logger after Close.
	ErrLoggerClosed = errors.New("audit: logger closed")
	// ErrLogConfig is returned by NewLogger for an unusable configuration.
	ErrLogConfig = errors.New("audit: invalid log configuration")
)
