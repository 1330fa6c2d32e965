package policy

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/portcullis/portcullis/internal/request"
)

// ValidationFailureAnnotation is the audit annotation listing the
// validation failures of bindings with the Audit action.
const ValidationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure"

// maxValidationFailures caps the failures in one annotation (about 10 KiB).
const maxValidationFailures = 50

// maxAuditAnnotationValueLength truncates audit annotation values.
const maxAuditAnnotationValueLength = 10 * 1024

// ValidationFailure is one entry of the validation_failure annotation.
type ValidationFailure struct {
	Message           string                                     `json:"message"`
	Policy            string                                     `json:"policy"`
	Binding           string                                     `json:"binding"`
	ExpressionIndex   int                                        `json:"expressionIndex"`
	ValidationActions []admissionregistrationv1.ValidationAction `json:"validationActions"`
}

func publishValidationFailures(st *request.State, failures []ValidationFailure, log *slog.Logger) {
	if len(failures) == 0 || st == nil {
		return
	}
	if len(failures) > maxValidationFailures {
		log.Warn("truncating validation failures in the audit annotation", "count", len(failures), "limit", maxValidationFailures)
		failures = failures[:maxValidationFailures]
	}
	value, err := json.Marshal(failures)
	if err != nil {
		log.Warn("failed to marshal validation failures", "err", err)
		return
	}
	st.AddAnnotation(ValidationFailureAnnotation, string(value))
}

// annotationCollector gathers the audit annotations of one policy over
// its bindings and params: duplicate values are dropped, distinct values
// of one key are joined.
type annotationCollector struct {
	keys   []string
	values map[string][]string
}

func (c *annotationCollector) add(key, value string) {
	if len(value) > maxAuditAnnotationValueLength {
		value = value[:maxAuditAnnotationValueLength]
	}
	if c.values == nil {
		c.values = map[string][]string{}
	}
	vs, seen := c.values[key]
	if slices.Contains(vs, value) {
		return
	}
	if !seen {
		c.keys = append(c.keys, key)
	}
	c.values[key] = append(vs, value)
}

// publish adds the annotations as "<policy>/<key>".
func (c *annotationCollector) publish(st *request.State, policyName string) {
	if st == nil {
		return
	}
	for _, k := range c.keys {
		st.AddAnnotation(policyName+"/"+k, strings.Join(c.values[k], ", "))
	}
}
