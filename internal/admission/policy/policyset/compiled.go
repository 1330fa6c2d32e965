package policyset

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
)

// Policy is the part of a compiled policy that both plugins share.
type Policy struct {
	Name string
	// FailurePolicy is the policy's, Fail when unset.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// Match are the policy's matchConstraints.
	Match *matching.Criteria
	// ParamKind is nil for a policy without params.
	ParamKind *schema.GroupVersionKind
	// Dropped is set for a paramKind whose apiVersion does not parse:
	// kube-apiserver then leaves the policy out altogether, and nothing
	// else is compiled.
	Dropped bool
	// Compiler holds the policy's variables; the plugin compiles its own
	// expressions with it and evaluates them with its activations.
	Compiler *celenv.Compiler
	// Conditions are the match conditions.
	Conditions []*celenv.Expression
}

// Spec is the part of a policy's spec that both plugins share.
type Spec struct {
	FailurePolicy    *admissionregistrationv1.FailurePolicyType
	MatchConstraints *admissionregistrationv1.MatchResources
	ParamKind        *admissionregistrationv1.ParamKind
	Variables        []admissionregistrationv1.Variable
	MatchConditions  []admissionregistrationv1.MatchCondition
}

// CompilePolicy compiles the shared part of a policy: its variables in
// order, then its match conditions. Compile errors are kept in the
// expressions and reported when they are evaluated, as kube-apiserver
// does.
func CompilePolicy(name string, s Spec) Policy {
	out := Policy{
		Name:          name,
		FailurePolicy: admissionregistrationv1.Fail,
		Match:         matching.CompilePolicy(s.MatchConstraints),
	}
	if s.FailurePolicy != nil {
		out.FailurePolicy = *s.FailurePolicy
	}
	if s.ParamKind != nil {
		kind, err := params.Kind(s.ParamKind)
		if err != nil {
			out.Dropped = true
			return out
		}
		out.ParamKind = &kind
	}
	vars := make([]celenv.Variable, len(s.Variables))
	for i, v := range s.Variables {
		vars[i] = celenv.Variable{Name: v.Name, Expression: v.Expression}
	}
	out.Compiler = celenv.NewCompiler(out.ParamKind != nil, vars)
	for _, m := range s.MatchConditions {
		out.Conditions = append(out.Conditions, out.Compiler.Compile(m.Expression, celenv.Decls{Authorizer: true}, cel.BoolType))
	}
	return out
}

// ParamsVal returns a param object as the params variable, nil for none.
func (p *Policy) ParamsVal(obj runtime.Object) ref.Val {
	if obj == nil || p.ParamKind == nil {
		return nil
	}
	return celenv.ParamsVal(obj, *p.ParamKind)
}

// Binding is the part of a compiled binding that both plugins share.
type Binding struct {
	Name, PolicyName string
	// Match are the binding's matchResources.
	Match *matching.Criteria
	// ParamRef is nil for a binding without one.
	ParamRef *params.Ref
}

// CompileBinding compiles the shared part of a binding.
func CompileBinding(name, policyName string, mr *admissionregistrationv1.MatchResources, ref *admissionregistrationv1.ParamRef) Binding {
	return Binding{Name: name, PolicyName: policyName, Match: matching.CompileBinding(mr), ParamRef: params.CompileRef(ref)}
}

// CompiledPolicy is a plugin's compiled policy, which embeds a Policy.
type CompiledPolicy interface {
	Common() *Policy
}

// CompiledBinding is a plugin's compiled binding, which embeds a Binding.
type CompiledBinding interface {
	Common() *Binding
}
