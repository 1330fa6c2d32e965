package policy

import (
	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// compiledPolicy is a ValidatingAdmissionPolicy ready to evaluate: what
// every policy has (policyset.Policy), its validations with their
// messages, and its audit annotations.
type compiledPolicy struct {
	policyset.Policy

	validations      []validation
	auditAnnotations []auditAnnotation
	// hasMessageExpressions is set when a validation has one.
	hasMessageExpressions bool
	// uses are the variables the expressions read.
	uses celenv.Uses
}

type validation struct {
	expr *celenv.Expression
	// messageExpr is nil without a messageExpression.
	messageExpr *celenv.Expression
	message     string
	reason      *metav1.StatusReason
}

type auditAnnotation struct {
	key   string
	value *celenv.Expression
}

// compilePolicy compiles every expression of p; compile errors are kept in
// the expressions and reported when they are evaluated.
func compilePolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) *compiledPolicy {
	spec := &p.Spec
	out := &compiledPolicy{Policy: policyset.CompilePolicy(p.Name, policyset.Spec{
		FailurePolicy:    spec.FailurePolicy,
		MatchConstraints: spec.MatchConstraints,
		ParamKind:        spec.ParamKind,
		Variables:        spec.Variables,
		MatchConditions:  spec.MatchConditions,
	})}
	if out.Dropped {
		return out
	}
	c := out.Compiler
	// The compiler declares params by the policy's paramKind.
	full := celenv.Decls{Authorizer: true}
	for _, v := range spec.Validations {
		cv := validation{expr: c.Compile(v.Expression, full, cel.BoolType), message: v.Message, reason: v.Reason}
		if v.MessageExpression != "" {
			// messageExpression may not use the authorizer.
			cv.messageExpr = c.Compile(v.MessageExpression, celenv.Decls{}, cel.StringType)
			out.hasMessageExpressions = true
		}
		out.validations = append(out.validations, cv)
	}
	for _, a := range spec.AuditAnnotations {
		out.auditAnnotations = append(out.auditAnnotations, auditAnnotation{key: a.Key, value: c.Compile(a.ValueExpression, full, cel.StringType, cel.NullType)})
	}
	out.uses = c.Uses()
	return out
}

// Common implements policyset.CompiledPolicy.
func (c *compiledPolicy) Common() *policyset.Policy { return &c.Policy }

// compiledBinding is a ValidatingAdmissionPolicyBinding ready to match.
type compiledBinding struct {
	policyset.Binding
	actions []admissionregistrationv1.ValidationAction
}

func compileBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) *compiledBinding {
	return &compiledBinding{
		Binding: policyset.CompileBinding(b.Name, b.Spec.PolicyName, b.Spec.MatchResources, b.Spec.ParamRef),
		actions: b.Spec.ValidationActions,
	}
}

// Common implements policyset.CompiledBinding.
func (b *compiledBinding) Common() *policyset.Binding { return &b.Binding }
