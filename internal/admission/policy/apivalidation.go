package policy

import (
	"strings"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// ValidateExpressions compiles the expressions of a policy being created
// (old nil) or updated, as kube-apiserver's API validation does, and
// returns their errors: matchConditions, variables, validations (with
// messageExpressions) and auditAnnotations, in that order. New expressions
// may only use what the previous minor release knows; expressions already
// in old are compiled with everything, so that a stored policy stays
// updatable. Match conditions are not checked on an update that leaves
// them and the paramKind alone. Blank expressions are left to the
// structural validation (internal/validation), which reports them.
func ValidateExpressions(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	spec := &p.Spec
	path := field.NewPath("spec")
	hasParams := spec.ParamKind != nil
	pre := preexistingOf(old)
	var errs field.ErrorList

	if old == nil || !equality.Semantic.DeepEqual(spec.MatchConditions, old.Spec.MatchConditions) || !equality.Semantic.DeepEqual(spec.ParamKind, old.Spec.ParamKind) {
		cond := celenv.NewConditionCompiler(hasParams)
		for i, mc := range spec.MatchConditions {
			expr := strings.TrimSpace(mc.Expression)
			if expr == "" {
				continue
			}
			e := cond.CompileIn(pre.mode(pre.matchConditions, expr), expr, celenv.Decls{Params: hasParams, Authorizer: true}, cel.BoolType)
			errs = appendCompileError(errs, path.Child("matchConditions").Index(i).Child("expression"), expr, e)
		}
	}

	// Without variables nothing declares them, as in kube-apiserver.
	c := celenv.NewConditionCompiler(hasParams)
	if len(spec.Variables) > 0 {
		c = celenv.NewValidationCompiler(hasParams)
	}
	for i, v := range spec.Variables {
		if strings.TrimSpace(v.Expression) == "" {
			continue
		}
		e := c.AddVariable(pre.mode(pre.validations, v.Expression), celenv.Variable{Name: v.Name, Expression: v.Expression})
		errs = appendCompileError(errs, path.Child("variables").Index(i).Child("expression"), v.Expression, e)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		return errs
	}
	full := celenv.Decls{Params: hasParams, Authorizer: true}
	for i, v := range spec.Validations {
		vp := path.Child("validations").Index(i)
		if strings.TrimSpace(v.Expression) != "" {
			e := c.CompileIn(pre.mode(pre.validations, v.Expression), v.Expression, full, cel.BoolType)
			errs = appendCompileError(errs, vp.Child("expression"), v.Expression, e)
		}
		if strings.TrimSpace(v.MessageExpression) != "" {
			e := c.CompileIn(pre.mode(pre.messages, v.MessageExpression), v.MessageExpression, celenv.Decls{Params: hasParams}, cel.StringType)
			errs = appendCompileError(errs, vp.Child("messageExpression"), v.MessageExpression, e)
		}
	}
	for i, a := range spec.AuditAnnotations {
		expr := strings.TrimSpace(a.ValueExpression)
		// Longer ones are the structural validation's error, not compiled.
		if expr == "" || len(expr) > celbase.MaxAuditAnnotationValueExpressionLength {
			continue
		}
		e := c.CompileIn(pre.mode(pre.annotations, a.ValueExpression), expr, full, cel.StringType, cel.NullType)
		errs = appendCompileError(errs, path.Child("auditAnnotations").Index(i).Child("valueExpression"), a.ValueExpression, e)
	}
	return errs
}

func appendCompileError(errs field.ErrorList, p *field.Path, expr string, e *celenv.Expression) field.ErrorList {
	err := e.Err()
	if err == nil {
		return errs
	}
	ce, ok := err.(*apiservercel.Error)
	if !ok {
		return append(errs, field.InternalError(p, err))
	}
	switch ce.Type {
	case apiservercel.ErrorTypeRequired:
		return append(errs, field.Required(p, ce.Detail))
	case apiservercel.ErrorTypeInvalid:
		return append(errs, field.Invalid(p, expr, ce.Detail))
	}
	return append(errs, field.InternalError(p, ce))
}

// preexisting holds the expressions of the stored policy.
type preexisting struct {
	matchConditions, validations, messages, annotations sets.Set[string]
}

func preexistingOf(old *admissionregistrationv1.ValidatingAdmissionPolicy) preexisting {
	pre := preexisting{sets.New[string](), sets.New[string](), sets.New[string](), sets.New[string]()}
	if old == nil {
		return pre
	}
	for _, mc := range old.Spec.MatchConditions {
		pre.matchConditions.Insert(mc.Expression)
	}
	for _, v := range old.Spec.Validations {
		pre.validations.Insert(v.Expression)
		if v.MessageExpression != "" {
			pre.messages.Insert(v.MessageExpression)
		}
	}
	for _, a := range old.Spec.AuditAnnotations {
		pre.annotations.Insert(a.ValueExpression)
	}
	return pre
}

func (preexisting) mode(set sets.Set[string], expr string) celbase.EnvType {
	if set.Has(expr) {
		return celbase.StoredExpressions
	}
	return celbase.NewExpressions
}
