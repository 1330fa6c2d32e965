package validation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

const maxAuditAnnotations = 20

// policyOptions carries the leniency of an update.
type policyOptions struct {
	skipMatchConditions bool
	// stored are the expressions of the object being updated, compiled
	// with every library this release knows (new ones only with what the
	// previous minor release knows).
	stored map[string]bool
}

func (o policyOptions) mode(expr string) celbase.EnvType {
	if o.stored[expr] {
		return celbase.StoredExpressions
	}
	return celbase.NewExpressions
}

// appendCELError adds a compile error as kube-apiserver reports it on the
// field holding expr.
func appendCELError(errs field.ErrorList, p *field.Path, expr string, err error) field.ErrorList {
	if err == nil {
		return errs
	}
	var cerr *apiservercel.Error
	if !errors.As(err, &cerr) {
		return append(errs, field.InternalError(p, err))
	}
	return append(errs, celFieldError(p, expr, cerr))
}

func validateValidatingAdmissionPolicy(pol *admissionv1.ValidatingAdmissionPolicy, opts policyOptions) field.ErrorList {
	errs := validateMeta(&pol.ObjectMeta, false, nameIsDNSSubdomain)
	spec, p := &pol.Spec, field.NewPath("spec")
	errs = append(errs, validatePolicyHead(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, p)...)
	hasParams := spec.ParamKind != nil
	if !opts.skipMatchConditions {
		errs = append(errs, validateMatchConditions(spec.MatchConditions, hasParams, opts.stored, p.Child("matchConditions"))...)
	}
	// As kube-apiserver, every expression is compiled with the structural
	// checks of its item, in field order; without variables nothing
	// declares them.
	c := celenv.NewConditionCompiler(hasParams)
	if len(spec.Variables) > 0 {
		c = celenv.NewValidationCompiler(hasParams)
	}
	for i, v := range spec.Variables {
		vp := p.Child("variables").Index(i)
		errs = append(errs, validateVariable(&v, vp)...)
		if strings.TrimSpace(v.Expression) != "" {
			e := c.AddVariable(opts.mode(v.Expression), celenv.Variable{Name: v.Name, Expression: v.Expression})
			errs = appendCELError(errs, vp.Child("expression"), v.Expression, e.Err())
		}
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs,
			field.Required(p.Child("validations"), msg),
			field.Required(p.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		errs = append(errs, validateValidation(&spec.Validations[i], p.Child("validations").Index(i), c, hasParams, opts)...)
	}
	if spec.AuditAnnotations != nil {
		ap := p.Child("auditAnnotations")
		if len(spec.AuditAnnotations) > maxAuditAnnotations {
			errs = append(errs, field.Invalid(ap, internalAuditAnnotations(spec.AuditAnnotations), fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		keys := map[string]bool{}
		for i, a := range spec.AuditAnnotations {
			errs = append(errs, validateAuditAnnotation(pol.Name, &a, ap.Index(i), c, hasParams, opts)...)
			if keys[a.Key] {
				errs = append(errs, field.Duplicate(ap.Index(i).Child("key"), a.Key))
			}
			keys[a.Key] = true
		}
	}
	return errs
}

// internalAuditAnnotations are annotations as kube-apiserver shows them in
// an error: its internal type, without JSON field names.
func internalAuditAnnotations(as []admissionv1.AuditAnnotation) any {
	type auditAnnotation struct{ Key, ValueExpression string }
	out := make([]auditAnnotation, len(as))
	for i, a := range as {
		out[i] = auditAnnotation{a.Key, a.ValueExpression}
	}
	return out
}

// validatePolicyHead checks what validating and mutating policies share:
// failurePolicy, paramKind and matchConstraints, which must name at least
// one resource rule so that expressions can be type-checked.
func validatePolicyHead(fp *admissionv1.FailurePolicyType, pk *admissionv1.ParamKind, mc *admissionv1.MatchResources, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if fp == nil {
		errs = append(errs, field.Required(p.Child("failurePolicy"), ""))
	} else if !contains(supportedFailurePolicies, string(*fp)) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *fp, supportedFailurePolicies))
	}
	if pk != nil {
		errs = append(errs, validateParamKind(pk, p.Child("paramKind"))...)
	}
	if mc == nil {
		return append(errs, field.Required(p.Child("matchConstraints"), ""))
	}
	errs = append(errs, validateMatchResources(mc, p.Child("matchConstraints"))...)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, field.Required(p.Child("matchConstraints", "resourceRules"), ""))
	}
	return errs
}

// validateValidation checks and compiles a validation: expression (a
// bool, with the authorizer), messageExpression (a string, without it),
// message, reason.
func validateValidation(v *admissionv1.Validation, p *field.Path, c *celenv.Compiler, hasParams bool, opts policyOptions) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	} else {
		e := c.CompileIn(opts.mode(v.Expression), v.Expression, celenv.Decls{Params: hasParams, Authorizer: true}, cel.BoolType)
		errs = appendCELError(errs, p.Child("expression"), v.Expression, e.Err())
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if v.MessageExpression != "" {
		e := c.CompileIn(opts.mode(v.MessageExpression), v.MessageExpression, celenv.Decls{Params: hasParams}, cel.StringType)
		errs = appendCELError(errs, p.Child("messageExpression"), v.MessageExpression, e.Err())
	}
	msg := strings.TrimSpace(v.Message)
	if v.Message != "" && msg == "" {
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must be non-empty if specified"))
	} else if hasNewlines(msg) {
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !contains(supportedPolicyReasons, string(*v.Reason)) {
		errs = append(errs, field.NotSupported(p.Child("reason"), *v.Reason, supportedPolicyReasons))
	}
	return errs
}

// validateAuditAnnotation checks that "<policy name>/<key>" is a qualified
// name, since that is the audit annotation key the server will write, and
// compiles the valueExpression (a string or null) unless it is too long.
func validateAuditAnnotation(policyName string, a *admissionv1.AuditAnnotation, p *field.Path, c *celenv.Compiler, hasParams bool, opts policyOptions) field.ErrorList {
	var errs field.ErrorList
	if policyName != "" {
		errs = append(errs, qualifiedName(policyName+"/"+a.Key, p.Child("key"))...)
	} else {
		errs = append(errs, field.Invalid(p.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	ve := strings.TrimSpace(a.ValueExpression)
	switch {
	case ve == "":
		errs = append(errs, field.Required(p.Child("valueExpression"), "valueExpression is not specified"))
	case len(ve) > celbase.MaxAuditAnnotationValueExpressionLength:
		errs = append(errs, field.Required(p.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", celbase.MaxAuditAnnotationValueExpressionLength)))
	default:
		e := c.CompileIn(opts.mode(a.ValueExpression), ve, celenv.Decls{Params: hasParams, Authorizer: true}, cel.StringType, cel.NullType)
		errs = appendCELError(errs, p.Child("valueExpression"), a.ValueExpression, e.Err())
	}
	return errs
}

func validateMutatingAdmissionPolicy(pol *admissionv1.MutatingAdmissionPolicy, opts policyOptions) field.ErrorList {
	errs := validateMeta(&pol.ObjectMeta, false, nameIsDNSSubdomain)
	spec, p := &pol.Spec, field.NewPath("spec")
	errs = append(errs, validatePolicyHead(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, p)...)
	errs = append(errs, validateMutatingOperations(spec.MatchConstraints, p.Child("matchConstraints"))...)
	if !opts.skipMatchConditions {
		errs = append(errs, validateMatchConditions(spec.MatchConditions, spec.ParamKind != nil, nil, p.Child("matchConditions"))...)
	}
	// As kube-apiserver, variables and mutations are compiled with the
	// structural checks of each, variables first so that mutations see them.
	hasParams := spec.ParamKind != nil
	c := celenv.NewValidationCompiler(hasParams)
	for i, v := range spec.Variables {
		vp := p.Child("variables").Index(i)
		errs = append(errs, validateVariable(&v, vp)...)
		if strings.TrimSpace(v.Expression) != "" {
			e := c.AddVariable(opts.mode(v.Expression), celenv.Variable{Name: v.Name, Expression: v.Expression})
			errs = appendCELError(errs, vp.Child("expression"), v.Expression, e.Err())
		}
	}
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(p.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		errs = append(errs, validateMutation(&spec.Mutations[i], p.Child("mutations").Index(i), c, hasParams, opts)...)
	}
	if spec.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(p.Child("reinvocationPolicy"), ""))
	} else if !contains(supportedReinvocation, string(spec.ReinvocationPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), spec.ReinvocationPolicy, supportedReinvocation))
	}
	return errs
}

// validateMutation checks that patchType names the one member that is set,
// and compiles its expression: an Object for ApplyConfiguration, a list of
// JSONPatch for JSONPatch.
func validateMutation(m *admissionv1.Mutation, p *field.Path, c *celenv.Compiler, hasParams bool, opts policyOptions) field.ErrorList {
	var errs field.ErrorList
	decls := celenv.Decls{Params: hasParams, Authorizer: true, Patch: true}
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(p.Child("patchType"), ""))
	case admissionv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(p.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else if expr := strings.TrimSpace(m.JSONPatch.Expression); expr == "" {
			errs = append(errs, field.Required(p.Child("jsonPatch", "expression"), ""))
		} else {
			e := c.CompileIn(opts.mode(m.JSONPatch.Expression), expr, decls, celenv.JSONPatchListType)
			errs = appendCELError(errs, p.Child("jsonPatch", "expression"), expr, e.Err())
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(p.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(p.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else if expr := strings.TrimSpace(m.ApplyConfiguration.Expression); expr == "" {
			errs = append(errs, field.Required(p.Child("applyConfiguration", "expression"), ""))
		} else {
			e := c.CompileIn(opts.mode(m.ApplyConfiguration.Expression), expr, decls, celenv.ApplyConfigurationType)
			errs = appendCELError(errs, p.Child("applyConfiguration", "expression"), expr, e.Err())
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(p.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("patchType"), m.PatchType, supportedPatchTypes))
	}
	return errs
}

// policyMatchConditionsUnchanged reports whether an update left the match
// conditions (and the paramKind they may use) as stored; stored conditions
// are then not re-checked.
func policyMatchConditionsUnchanged(pk, oldPK *admissionv1.ParamKind, mc, oldMC []admissionv1.MatchCondition) bool {
	return reflect.DeepEqual(pk, oldPK) && semanticEqualConditions(mc, oldMC)
}

// semanticEqualConditions treats nil and empty lists as equal, as
// apimachinery's semantic equality does.
func semanticEqualConditions(a, b []admissionv1.MatchCondition) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func validateValidatingAdmissionPolicyBinding(b *admissionv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, false, nameIsDNSSubdomain)
	spec, p := &b.Spec, field.NewPath("spec")
	errs = append(errs, validatePolicyName(spec.PolicyName, p.Child("policyName"))...)
	errs = append(errs, validateParamRef(spec.ParamRef, p.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, p.Child("matchResources"))...)
	return append(errs, validateValidationActions(spec.ValidationActions, p.Child("validationActions"))...)
}

func validateMutatingAdmissionPolicyBinding(b *admissionv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, false, nameIsDNSSubdomain)
	spec, p := &b.Spec, field.NewPath("spec")
	errs = append(errs, validatePolicyName(spec.PolicyName, p.Child("policyName"))...)
	errs = append(errs, validateParamRef(spec.ParamRef, p.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, p.Child("matchResources"))...)
	return append(errs, validateMutatingOperations(spec.MatchResources, p.Child("matchResources"))...)
}

func validatePolicyName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range nameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// validateParamRef requires exactly one of name and selector, and an
// explicit parameterNotFoundAction (v1 has no default for it).
func validateParamRef(pr *admissionv1.ParamRef, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	if pr.Name != "" {
		for _, msg := range nameIsPathSegment(pr.Name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(p.Child("name"), "name and selector are mutually exclusive"))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, validateLabelSelector(pr.Selector, false, p.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(p.Child("selector"), "name and selector are mutually exclusive"))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(p, "one of name or selector must be specified"))
	}
	if pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "" {
		errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	} else if a := *pr.ParameterNotFoundAction; a != admissionv1.DenyAction && a != admissionv1.AllowAction {
		errs = append(errs, field.NotSupported(p.Child("parameterNotFoundAction"), a, []string{string(admissionv1.DenyAction), string(admissionv1.AllowAction)}))
	}
	return errs
}

// validateValidationActions requires a non-empty set of known actions and
// rejects Deny with Warn, which would report the same failure twice.
func validateValidationActions(actions []admissionv1.ValidationAction, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[admissionv1.ValidationAction]bool{}
	for i, a := range actions {
		if !contains(supportedValidationActions, string(a)) {
			errs = append(errs, field.NotSupported(p.Index(i), a, supportedValidationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(p.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admissionv1.Deny] && seen[admissionv1.Warn] {
		errs = append(errs, field.Invalid(p, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	return errs
}

func validateValidatingAdmissionPolicyUpdate(pol, old *admissionv1.ValidatingAdmissionPolicy) field.ErrorList {
	opts := policyOptions{skipMatchConditions: policyMatchConditionsUnchanged(pol.Spec.ParamKind, old.Spec.ParamKind, pol.Spec.MatchConditions, old.Spec.MatchConditions),
		stored: map[string]bool{}}
	for _, mc := range old.Spec.MatchConditions {
		opts.stored[mc.Expression] = true
	}
	for _, v := range old.Spec.Variables {
		opts.stored[v.Expression] = true
	}
	for _, v := range old.Spec.Validations {
		opts.stored[v.Expression] = true
		opts.stored[v.MessageExpression] = true
	}
	for _, a := range old.Spec.AuditAnnotations {
		opts.stored[a.ValueExpression] = true
	}
	errs := validateValidatingAdmissionPolicy(pol, opts)
	return append(errs, validateMetaUpdate(&pol.ObjectMeta, &old.ObjectMeta)...)
}

func validateMutatingAdmissionPolicyUpdate(pol, old *admissionv1.MutatingAdmissionPolicy) field.ErrorList {
	opts := policyOptions{skipMatchConditions: policyMatchConditionsUnchanged(pol.Spec.ParamKind, old.Spec.ParamKind, pol.Spec.MatchConditions, old.Spec.MatchConditions),
		stored: map[string]bool{}}
	for _, v := range old.Spec.Variables {
		opts.stored[v.Expression] = true
	}
	for _, m := range old.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			opts.stored[m.ApplyConfiguration.Expression] = true
		}
		if m.JSONPatch != nil {
			opts.stored[m.JSONPatch.Expression] = true
		}
	}
	errs := validateMutatingAdmissionPolicy(pol, opts)
	return append(errs, validateMetaUpdate(&pol.ObjectMeta, &old.ObjectMeta)...)
}
