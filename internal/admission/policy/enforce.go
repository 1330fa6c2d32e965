package policy

import (
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// denial is a decision that denies the request.
type denial struct {
	policy, binding string // binding is empty for policy errors
	message         string
	reason          metav1.StatusReason
}

// ConfigError implements dispatch.Visitor: a configuration error of a
// policy (b nil) or binding denies unless the policy ignores failures.
func (r *review) ConfigError(pol *compiledPolicy, b *policyset.Binding, err error) {
	den := denial{policy: pol.Name}
	if b != nil {
		den.binding = b.Name
	}
	switch pol.FailurePolicy {
	case admissionregistrationv1.Ignore:
		if r.tracing {
			r.state.AddPart(configPart(pol, den.binding, err.Error()))
		}
		return
	case admissionregistrationv1.Fail:
		if b == nil {
			den.message = fmt.Errorf("failed to configure policy: %w", err).Error()
		} else {
			den.message = fmt.Errorf("failed to configure binding: %w", err).Error()
		}
	default:
		den.message = fmt.Sprintf("unrecognized failure policy: '%v'", pol.FailurePolicy)
	}
	if r.tracing {
		r.state.AddPart(configPart(pol, den.binding, den.message))
	}
	r.denied = append(r.denied, den)
}

// apply enforces one evaluation by the binding's validation actions.
func (r *review) apply(pol *compiledPolicy, b *compiledBinding, res result) {
	m := r.p.metrics
	for i := range res.decisions {
		dec := &res.decisions[i]
		switch dec.action {
		case actionAdmit:
			if dec.evaluation == evalError {
				m.Observe(dec.elapsed, pol.Name, b.Name, errorType(dec), enforceAllow)
			}
		case actionDeny:
			for _, act := range b.actions {
				switch act {
				case admissionregistrationv1.Deny:
					r.denied = append(r.denied, denial{policy: pol.Name, binding: b.Name, message: dec.message, reason: dec.reason})
					m.Observe(dec.elapsed, pol.Name, b.Name, errorType(dec), enforceDeny)
				case admissionregistrationv1.Audit:
					r.failures = append(r.failures, ValidationFailure{
						ExpressionIndex:   i,
						Message:           dec.message,
						ValidationActions: b.actions,
						Binding:           b.Name,
						Policy:            b.PolicyName,
					})
					m.Observe(dec.elapsed, pol.Name, b.Name, errorType(dec), enforceAudit)
				case admissionregistrationv1.Warn:
					if r.state != nil {
						r.state.AddWarning(WarningText(pol.Name, b.Name, dec.message))
					}
					m.Observe(dec.elapsed, pol.Name, b.Name, errorType(dec), enforceWarn)
				}
			}
		}
	}
	for i := range res.annotations {
		an := &res.annotations[i]
		switch an.action {
		case annotationPublish:
			r.annotations.add(an.key, an.value)
		case annotationError:
			// An audit annotation that fails denies whatever the actions.
			dec := decision{action: actionDeny, evaluation: evalError, message: an.err, elapsed: an.elapsed}
			r.denied = append(r.denied, denial{policy: pol.Name, binding: b.Name, message: an.err})
			m.Observe(an.elapsed, pol.Name, b.Name, errorType(&dec), enforceDeny)
		}
	}
}

// WarningText is the Warning header text of a failed validation of a
// binding with the Warn action.
func WarningText(policy, binding, message string) string {
	return fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", policy, binding, message)
}

// DenyMessage is the message of a denied request.
func DenyMessage(policy, binding, message string) string {
	if binding == "" {
		return fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", policy, message)
	}
	return fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, binding, message)
}

// finish publishes the audit failures and returns the first denial.
func (r *review) finish() error {
	publishValidationFailures(r.state, r.failures, r.p.log)
	if len(r.denied) == 0 {
		return nil
	}
	den := r.denied[0]
	message := DenyMessage(den.policy, den.binding, den.message)
	err := dispatch.Forbidden(r.a, errors.New(message))
	reason := den.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	err.ErrStatus.Reason = reason
	err.ErrStatus.Code = reasonCode(reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return err
}
