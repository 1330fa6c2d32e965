package mutating

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
)

// compiledPolicy is a MutatingAdmissionPolicy ready to evaluate.
type compiledPolicy struct {
	source *admissionregistrationv1.MutatingAdmissionPolicy
	name   string
	// failurePolicy is the policy's, Fail when unset.
	failurePolicy admissionregistrationv1.FailurePolicyType
	// ifNeeded is set for reinvocationPolicy IfNeeded.
	ifNeeded bool
	match    *matching.Criteria
	// paramKind is nil for a policy without params.
	paramKind *schema.GroupVersionKind
	// dropped is set for a paramKind whose apiVersion does not parse:
	// kube-apiserver then leaves the policy out altogether.
	dropped bool

	// compiler holds the variables for match conditions, which celenv
	// evaluates with its own activation.
	compiler        *celenv.Compiler
	matchConditions []*celenv.Expression
	// variables are the policy's variables by name, in order, for the
	// activations of mutations.
	variables []variable
	// varsType is the type of variables in mutation expressions.
	varsType  *apiservercel.DeclType
	mutations []*mutationExpr
	// missing counts mutations without an expression for their patch
	// type, which kube-apiserver compiles to nothing and then refuses to
	// run the policy.
	missing int
	// uses are the admission variables the match conditions, variables and
	// mutations read.
	uses celenv.Uses
}

type variable struct {
	name string
	expr *celenv.Expression
}

// mutationExpr is one compiled mutation.
type mutationExpr struct {
	patchType admissionregistrationv1.PatchType
	source    string
	program   cel.Program
	// err is the compile error, reported when the mutation is applied.
	err *apiservercel.Error
	// uses are the admission variables the expression reads.
	uses celenv.Uses
}

// The result types of mutation expressions.
var (
	applyConfigurationType = types.NewObjectType("Object")
	jsonPatchListType      = cel.ListType(types.NewObjectType("JSONPatch"))
)

// compilePolicy compiles every expression of p; compile errors are kept in
// the expressions and reported when they are evaluated.
func compilePolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) *compiledPolicy {
	spec := &p.Spec
	out := &compiledPolicy{
		source:        p,
		name:          p.Name,
		failurePolicy: admissionregistrationv1.Fail,
		ifNeeded:      spec.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy,
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

	c := celenv.NewValidationCompiler(hasParams)
	out.compiler = c
	varsType := apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})
	out.varsType = varsType
	for _, v := range spec.Variables {
		e := c.AddVariable(environment.StoredExpressions, celenv.Variable{Name: v.Name, Expression: v.Expression})
		varsType.Fields[v.Name] = apiservercel.NewDeclField(v.Name, celenv.DeclTypeOf(e.OutputType), true, nil, nil)
		out.addVariable(v.Name, e)
	}
	for _, m := range spec.MatchConditions {
		out.matchConditions = append(out.matchConditions, c.Compile(m.Expression, celenv.Decls{Authorizer: true}, cel.BoolType))
	}
	out.uses = c.Uses()

	env, envErr := mutationEnv(hasParams, varsType)
	for _, m := range spec.Mutations {
		var me *mutationExpr
		switch {
		case m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			me = compileMutation(env, envErr, m.PatchType, m.ApplyConfiguration.Expression, applyConfigurationType)
		case m.PatchType == admissionregistrationv1.PatchTypeJSONPatch && m.JSONPatch != nil:
			me = compileMutation(env, envErr, m.PatchType, m.JSONPatch.Expression, jsonPatchListType)
		default:
			out.missing++
			continue
		}
		out.uses |= me.uses
		out.mutations = append(out.mutations, me)
	}
	return out
}

// addVariable keeps the last definition of a name, as kube-apiserver does.
func (p *compiledPolicy) addVariable(name string, e *celenv.Expression) {
	for i := range p.variables {
		if p.variables[i].name == name {
			p.variables[i].expr = e
			return
		}
	}
	p.variables = append(p.variables, variable{name: name, expr: e})
}

// compileMutation compiles one mutation expression, whose result must be
// of type want.
func compileMutation(env *cel.Env, envErr error, pt admissionregistrationv1.PatchType, expr string, want *cel.Type) *mutationExpr {
	out := &mutationExpr{patchType: pt, source: expr}
	fail := func(t apiservercel.ErrorType, detail string, cause error) *mutationExpr {
		out.err = &apiservercel.Error{Type: t, Detail: detail, Cause: cause}
		return out
	}
	if envErr != nil {
		return fail(apiservercel.ErrorTypeInternal, fmt.Sprintf("unexpected error loading CEL environment: %v", envErr), nil)
	}
	ast, issues := env.Compile(expr)
	if issues != nil {
		return fail(apiservercel.ErrorTypeInvalid, "compilation failed: "+issues.String(), apiservercel.NewCompilationError(issues))
	}
	if got := ast.OutputType(); !got.IsExactType(want) {
		return fail(apiservercel.ErrorTypeInvalid, fmt.Sprintf("must evaluate to %v but got %v", want.String(), got.String()), nil)
	}
	prog, err := env.Program(ast, cel.InterruptCheckFrequency(celconfig.CheckFrequency))
	if err != nil {
		return fail(apiservercel.ErrorTypeInternal, "program instantiation failed: "+err.Error(), nil)
	}
	out.program = prog
	out.uses = usesOf(ast)
	return out
}

// usesByName maps the admission variables to their Uses bits.
var usesByName = map[string]celenv.Uses{
	celenv.ObjectVar:                    celenv.UsesObject,
	celenv.OldObjectVar:                 celenv.UsesOldObject,
	celenv.RequestVar:                   celenv.UsesRequest,
	celenv.NamespaceVar:                 celenv.UsesNamespace,
	celenv.ParamsVar:                    celenv.UsesParams,
	celenv.AuthorizerVar:                celenv.UsesAuthorizer,
	celenv.RequestResourceAuthorizerVar: celenv.UsesRequestResourceAuthorizer,
	celenv.VariablesVar:                 celenv.UsesVariables,
}

// usesOf lists the admission variables a checked expression refers to.
func usesOf(ast *cel.Ast) celenv.Uses {
	var u celenv.Uses
	for _, r := range ast.NativeRep().ReferenceMap() {
		if r != nil && len(r.OverloadIDs) == 0 {
			u |= usesByName[r.Name]
		}
	}
	return u
}

// compiledBinding is a MutatingAdmissionPolicyBinding ready to match.
type compiledBinding struct {
	source     *admissionregistrationv1.MutatingAdmissionPolicyBinding
	name       string
	policyName string
	match      *matching.Criteria
	paramRef   *params.Ref
}

func compileBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) *compiledBinding {
	return &compiledBinding{
		source:     b,
		name:       b.Name,
		policyName: b.Spec.PolicyName,
		match:      matching.CompileBinding(b.Spec.MatchResources),
		paramRef:   params.CompileRef(b.Spec.ParamRef),
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
