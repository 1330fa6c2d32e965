package policy

import (
	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
)

// compiledPolicy is a ValidatingAdmissionPolicy ready to evaluate.
type compiledPolicy struct {
	source *admissionregistrationv1.ValidatingAdmissionPolicy
	name   string
	// failurePolicy is the policy's, Fail when unset.
	failurePolicy admissionregistrationv1.FailurePolicyType
	match         *matching.Criteria
	// paramKind is nil for a policy without params.
	paramKind *schema.GroupVersionKind
	// dropped is set for a paramKind whose apiVersion does not parse:
	// kube-apiserver then leaves the policy out altogether.
	dropped bool

	compiler         *celenv.Compiler
	matchConditions  []matchCondition
	validations      []validation
	auditAnnotations []auditAnnotation
	// hasMessageExpressions is set when a validation has one.
	hasMessageExpressions bool
	// uses are the variables the expressions read.
	uses celenv.Uses
}

type matchCondition struct {
	name string
	expr *celenv.Expression
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
	out := &compiledPolicy{
		source:        p,
		name:          p.Name,
		failurePolicy: admissionregistrationv1.Fail,
		match:         matching.CompilePolicy(spec.MatchConstraints),
	}
	if spec.FailurePolicy != nil {
		out.failurePolicy = *spec.FailurePolicy
	}
	if spec.ParamKind != nil {
		kind, err := params.Kind(spec.ParamKind)
		if err != nil {
			out.dropped = true
			return out
		}
		out.paramKind = &kind
	}
	hasParams := spec.ParamKind != nil
	vars := make([]celenv.Variable, len(spec.Variables))
	for i, v := range spec.Variables {
		vars[i] = celenv.Variable{Name: v.Name, Expression: v.Expression}
	}
	c := celenv.NewCompiler(hasParams, vars)
	out.compiler = c
	full := celenv.Decls{Params: hasParams, Authorizer: true}
	for _, m := range spec.MatchConditions {
		out.matchConditions = append(out.matchConditions, matchCondition{name: m.Name, expr: c.Compile(m.Expression, full, cel.BoolType)})
	}
	for _, v := range spec.Validations {
		cv := validation{expr: c.Compile(v.Expression, full, cel.BoolType), message: v.Message, reason: v.Reason}
		if v.MessageExpression != "" {
			// messageExpression may not use the authorizer.
			cv.messageExpr = c.Compile(v.MessageExpression, celenv.Decls{Params: hasParams}, cel.StringType)
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

// compiledBinding is a ValidatingAdmissionPolicyBinding ready to match.
type compiledBinding struct {
	source     *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	name       string
	policyName string
	match      *matching.Criteria
	paramRef   *params.Ref
	actions    []admissionregistrationv1.ValidationAction
}

func compileBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) *compiledBinding {
	return &compiledBinding{
		source:     b,
		name:       b.Name,
		policyName: b.Spec.PolicyName,
		match:      matching.CompileBinding(b.Spec.MatchResources),
		paramRef:   params.CompileRef(b.Spec.ParamRef),
		actions:    b.Spec.ValidationActions,
	}
}

// Criteria implements policyset.Policy.
func (c *compiledPolicy) Criteria() *matching.Criteria { return c.match }

// Dropped implements policyset.Policy.
func (c *compiledPolicy) Dropped() bool { return c.dropped }

// BindingName implements policyset.Binding.
func (b *compiledBinding) BindingName() string { return b.name }

// PolicyName implements policyset.Binding.
func (b *compiledBinding) PolicyName() string { return b.policyName }

// Criteria implements policyset.Binding.
func (b *compiledBinding) Criteria() *matching.Criteria { return b.match }
