package policy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/defaults"
)

type policyOpt func(*admissionregistrationv1.ValidatingAdmissionPolicy)

// vap returns a defaulted policy on pods (every operation) with opts applied.
func vap(name string, opts ...policyOpt) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}}},
			},
		},
	}
	for _, o := range opts {
		o(p)
	}
	defaults.Apply(p)
	return p
}

func validate(expr string) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: expr})
	}
}

func withValidation(v admissionregistrationv1.Validation) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Validations = append(p.Spec.Validations, v)
	}
}

func variable(name, expr string) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Variables = append(p.Spec.Variables, admissionregistrationv1.Variable{Name: name, Expression: expr})
	}
}

func matchWhen(name, expr string) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConditions = append(p.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: name, Expression: expr})
	}
}

func annotate(key, expr string) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: key, ValueExpression: expr})
	}
}

func failurePolicy(f admissionregistrationv1.FailurePolicyType) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.FailurePolicy = &f }
}

func paramKind(apiVersion, kind string) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: apiVersion, Kind: kind}
	}
}

func constraints(mr *admissionregistrationv1.MatchResources) policyOpt {
	return func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.MatchConstraints = mr }
}

type bindingOpt func(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)

// vapb returns a defaulted binding of policy; without actions it denies.
func vapb(name, policy string, opts ...bindingOpt) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy},
	}
	for _, o := range opts {
		o(b)
	}
	if len(b.Spec.ValidationActions) == 0 {
		b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
	}
	defaults.Apply(b)
	return b
}

func actions(as ...admissionregistrationv1.ValidationAction) bindingOpt {
	return func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Spec.ValidationActions = as }
}

func paramRef(r admissionregistrationv1.ParamRef) bindingOpt {
	return func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Spec.ParamRef = &r }
}

func bindingResources(mr *admissionregistrationv1.MatchResources) bindingOpt {
	return func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Spec.MatchResources = mr }
}

func ptrTo[T any](v T) *T { return &v }
