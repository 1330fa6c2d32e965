package mutating

import "errors"

// ErrNoScheme is returned by New without Options.Scheme.
var ErrNoScheme = errors.New("mutating admission policy: a scheme is required")

// ErrPatchTooLarge is the error of a JSON patch that grows the object
// past the largest request.
var ErrPatchTooLarge = errors.New("patch too large")

// ErrKindChanged is the error of a JSON patch that changes the object's
// apiVersion or kind.
var ErrKindChanged = errors.New("the patch changed the object's kind")

// errDenied is the error of a request a policy denied; the response's
// message is then replaced by the first failure's, as in kube-apiserver.
var errDenied = errors.New("admission request denied by policy")

// Conversion errors of the values mutation expressions return.
var (
	errTooDeep        = errors.New("value nested too deeply")
	errJSONPatchValue = errors.New("a JSONPatch is not a JSON value")
)
