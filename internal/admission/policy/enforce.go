package policy

import (
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// configError records a configuration error of a policy (b nil) or
// binding, which denies unless the policy ignores failures.
func (d *dispatch) configError(pol *compiledPolicy, b *compiledBinding, err error) {
	den := denial{policy: pol.name}
	switch pol.failurePolicy {
	case admissionregistrationv1.Ignore:
		return
	case admissionregistrationv1.Fail:
		if b == nil {
			den.message = fmt.Errorf("failed to configure policy: %w", err).Error()
		} else {
			den.message = fmt.Errorf("failed to configure binding: %w", err).Error()
		}
	default:
		den.message = fmt.Sprintf("unrecognized failure policy: '%v'", pol.failurePolicy)
	}
	if b != nil {
		den.binding = b.name
	}
	d.denied = append(d.denied, den)
}

// apply enforces one evaluation by the binding's validation actions.
func (d *dispatch) apply(pol *compiledPolicy, b *compiledBinding, res result, annotations *annotationCollector) {
	m := d.p.metrics
	for i := range res.decisions {
		dec := &res.decisions[i]
		switch dec.action {
		case actionAdmit:
			if dec.evaluation == evalError {
				m.observe(pol.name, b.name, errorType(dec), enforceAllow, dec.elapsed)
			}
		case actionDeny:
			for _, act := range b.actions {
				switch act {
				case admissionregistrationv1.Deny:
					d.denied = append(d.denied, denial{policy: pol.name, binding: b.name, message: dec.message, reason: dec.reason})
					m.observe(pol.name, b.name, errorType(dec), enforceDeny, dec.elapsed)
				case admissionregistrationv1.Audit:
					d.failures = append(d.failures, ValidationFailure{
						ExpressionIndex:   i,
						Message:           dec.message,
						ValidationActions: b.actions,
						Binding:           b.name,
						Policy:            b.policyName,
					})
					m.observe(pol.name, b.name, errorType(dec), enforceAudit, dec.elapsed)
				case admissionregistrationv1.Warn:
					if d.state != nil {
						d.state.AddWarning(WarningText(pol.name, b.name, dec.message))
					}
					m.observe(pol.name, b.name, errorType(dec), enforceWarn, dec.elapsed)
				}
			}
		}
	}
	for i := range res.annotations {
		an := &res.annotations[i]
		switch an.action {
		case annotationPublish:
			annotations.add(an.key, an.value)
		case annotationError:
			// An audit annotation that fails denies whatever the actions.
			dec := decision{action: actionDeny, evaluation: evalError, message: an.err, elapsed: an.elapsed}
			d.denied = append(d.denied, denial{policy: pol.name, binding: b.name, message: an.err})
			m.observe(pol.name, b.name, errorType(&dec), enforceDeny, an.elapsed)
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
func (d *dispatch) finish() error {
	publishValidationFailures(d.state, d.failures, d.p.log)
	if len(d.denied) == 0 {
		return nil
	}
	den := d.denied[0]
	message := DenyMessage(den.policy, den.binding, den.message)
	err := forbidden(d.a, errors.New(message))
	reason := den.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	err.ErrStatus.Reason = reason
	err.ErrStatus.Code = reasonCode(reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return err
}

// forbidden is kube-apiserver's admission error: 403 on the resource and
// the object's name (its generateName before one is generated).
func forbidden(a *admission.Attributes, err error) *apierrors.StatusError {
	name := a.Name
	if name == "" {
		name = "Unknown"
		if !matching.IsNil(a.Object) {
			if m, merr := meta.Accessor(a.Object); merr != nil {
				name = "Unknown/errorGettingName"
			} else if m.GetName() != "" {
				name = m.GetName()
			} else if m.GetGenerateName() != "" {
				name = m.GetGenerateName()
			}
		}
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), name, err)
}
