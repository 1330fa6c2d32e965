package policy

import (
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/checkmetrics"
)

// action is what a decision asks for.
type action int

const (
	actionAdmit action = iota
	actionDeny
)

// evaluation says how a decision was reached.
type evaluation int

const (
	evalAdmit evaluation = iota
	evalError
	evalDeny
)

// decision is the outcome of one validation (or of an error standing for
// all of them).
type decision struct {
	action     action
	evaluation evaluation
	message    string
	reason     metav1.StatusReason
	elapsed    time.Duration
}

// annotationAction is what becomes of one audit annotation.
type annotationAction int

const (
	annotationExclude annotationAction = iota
	annotationPublish
	annotationError
)

type annotationResult struct {
	key, value string
	action     annotationAction
	err        string
	elapsed    time.Duration
}

// result is the outcome of evaluating a policy for one binding and param.
type result struct {
	decisions   []decision
	annotations []annotationResult
}

// errorType classifies a decision for the metrics as kube-apiserver does,
// by its message: a denial by a false validation counts as invalid_error.
func errorType(d *decision) string {
	if d.evaluation == evalAdmit {
		return checkmetrics.ErrorTypeNone
	}
	return checkmetrics.ErrorType(d.message)
}

// reasonCode maps a validation's reason to the response status code.
func reasonCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	// Invalid, and anything API validation would not have let through.
	return http.StatusUnprocessableEntity
}
