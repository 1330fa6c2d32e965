package mutating

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// compiledPolicy is a MutatingAdmissionPolicy ready to evaluate: what
// every policy has (policyset.Policy), its mutations and its
// reinvocation policy.
type compiledPolicy struct {
	policyset.Policy

	// ifNeeded is set for reinvocationPolicy IfNeeded.
	ifNeeded  bool
	mutations []compiledMutation
	// missing counts mutations without an expression for their patch
	// type, which kube-apiserver compiles to nothing and then refuses to
	// run the policy.
	missing int
	// uses are the admission variables the match conditions, variables and
	// mutations read.
	uses celenv.Uses
}

// compiledMutation is one compiled mutation.
type compiledMutation struct {
	patchType admissionregistrationv1.PatchType
	expr      *celenv.Expression
}

// mutationDecls are what mutation expressions may use: the authorizer,
// and the patch types, which match conditions and variables may not.
var mutationDecls = celenv.Decls{Authorizer: true, Patch: true}

// compilePolicy compiles every expression of p; compile errors are kept in
// the expressions and reported when they are evaluated.
func compilePolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) *compiledPolicy {
	spec := &p.Spec
	out := &compiledPolicy{
		Policy: policyset.CompilePolicy(p.Name, policyset.Spec{
			FailurePolicy:    spec.FailurePolicy,
			MatchConstraints: spec.MatchConstraints,
			ParamKind:        spec.ParamKind,
			Variables:        spec.Variables,
			MatchConditions:  spec.MatchConditions,
		}),
		ifNeeded: spec.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy,
	}
	if out.Dropped {
		return out
	}
	c := out.Compiler
	for _, m := range spec.Mutations {
		switch {
		case m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			out.mutations = append(out.mutations, compiledMutation{m.PatchType, c.Compile(m.ApplyConfiguration.Expression, mutationDecls, celenv.ApplyConfigurationType)})
		case m.PatchType == admissionregistrationv1.PatchTypeJSONPatch && m.JSONPatch != nil:
			out.mutations = append(out.mutations, compiledMutation{m.PatchType, c.Compile(m.JSONPatch.Expression, mutationDecls, celenv.JSONPatchListType)})
		default:
			out.missing++
		}
	}
	out.uses = c.Uses()
	return out
}

// Common implements policyset.CompiledPolicy.
func (c *compiledPolicy) Common() *policyset.Policy { return &c.Policy }

// compiledBinding is a MutatingAdmissionPolicyBinding ready to match.
type compiledBinding struct {
	policyset.Binding
}

func compileBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) *compiledBinding {
	return &compiledBinding{policyset.CompileBinding(b.Name, b.Spec.PolicyName, b.Spec.MatchResources, b.Spec.ParamRef)}
}

// Common implements policyset.CompiledBinding.
func (b *compiledBinding) Common() *policyset.Binding { return &b.Binding }
