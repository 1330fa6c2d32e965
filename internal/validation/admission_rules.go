package validation

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// Allowed values, sorted as kube-apiserver lists them in "supported values".
var (
	supportedScopes             = []string{"*", "Cluster", "Namespaced"}
	supportedFailurePolicies    = []string{"Fail", "Ignore"}
	supportedMatchPolicies      = []string{"Equivalent", "Exact"}
	supportedSideEffectClasses  = []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	noSideEffectClasses         = []string{"None", "NoneOnDryRun"}
	supportedOperations         = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	supportedMutatingOperations = []string{"*", "CONNECT", "CREATE", "UPDATE"}
	supportedReinvocation       = []string{"IfNeeded", "Never"}
	supportedPolicyReasons      = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	supportedPatchTypes         = []string{"ApplyConfiguration", "JSONPatch"}
	supportedValidationActions  = []string{"Audit", "Deny", "Warn"}
	// acceptedReviewVersions are the AdmissionReview versions the server
	// can send; a webhook must accept at least one.
	acceptedReviewVersions = []string{"v1", "v1beta1"}
)

const maxMatchConditions = 64

func hasWildcard(list []string) bool { return contains(list, "*") }

// validateResources checks a webhook or policy rule's resources, where
// "x/*", "*/y", "*/*" and "*" may each shadow more specific entries.
func validateResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	wildSub := map[string]bool{} // "x/*" seen, keyed by x
	wildRes := map[string]bool{} // "*/y" seen, keyed by y
	hasDouble, hasSingle, hasPlain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		if rs == "*/*" {
			hasDouble = true
		}
		if rs == "*" {
			hasSingle = true
		}
		res, sub, found := strings.Cut(rs, "/")
		if !found {
			// Mirrors the reference: only the last plain entry decides.
			hasPlain = rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && hasDouble {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasSingle && hasPlain {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

func validateRule(r *admissionv1.Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && hasWildcard(r.APIGroups) {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	// An empty group is the legacy core group and is fine; an empty version is not.
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && hasWildcard(r.APIVersions) {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !contains(supportedScopes, string(*r.Scope)) {
		errs = append(errs, field.NotSupported(p.Child("scope"), *r.Scope, supportedScopes))
	}
	return errs
}

func validateRuleWithOperations(r *admissionv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := p.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(ops, ""))
	}
	hasAll := false
	for _, op := range r.Operations {
		if op == admissionv1.OperationAll {
			hasAll = true
		}
	}
	if len(r.Operations) > 1 && hasAll {
		errs = append(errs, field.Invalid(ops, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !contains(supportedOperations, string(op)) {
			errs = append(errs, field.NotSupported(ops.Index(i), op, supportedOperations))
		}
	}
	return append(errs, validateRule(&r.Rule, p)...)
}

func validateNamedRule(r *admissionv1.NamedRuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		for _, msg := range nameIsPathSegment(name, false) {
			errs = append(errs, field.Invalid(p.Child("resourceNames").Index(i), name, msg))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(p.Child("resourceNames").Index(i), name))
		}
		seen[name] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, p)...)
}

// validateMatchResources checks a policy's or binding's match criteria. The
// selectors are checked strictly: these types postdate the lenient era.
func validateMatchResources(m *admissionv1.MatchResources, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m == nil {
		return nil
	}
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else if !contains(supportedMatchPolicies, string(*m.MatchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *m.MatchPolicy, supportedMatchPolicies))
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, field.Required(p.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(m.NamespaceSelector, false, p.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, field.Required(p.Child("objectSelector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(m.ObjectSelector, false, p.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateMutatingOperations rejects DELETE in a mutating policy's rules: a
// deleted object cannot be mutated. The reference reports the list path
// without an index, and so do we.
func validateMutatingOperations(m *admissionv1.MatchResources, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m == nil {
		return nil
	}
	for _, rule := range m.ResourceRules {
		for _, op := range rule.Operations {
			if !contains(supportedMutatingOperations, string(op)) {
				errs = append(errs, field.NotSupported(p.Child("resourceRules", "operations"), op, supportedMutatingOperations))
			}
		}
	}
	return errs
}

// validateMatchConditions checks match conditions as kube-apiserver does,
// compiling each expression with the authorizer (and params when the
// policy has a paramKind): a syntax error, an undeclared reference or a
// result other than bool is refused. Expressions in stored (those of the
// object an update replaces) compile in the environment of stored
// expressions, new ones in that of the previous minor release.
func validateMatchConditions(conds []admissionv1.MatchCondition, hasParams bool, stored map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(conds), maxMatchConditions))
	}
	seen := map[string]bool{}
	for i, c := range conds {
		cp := p.Index(i)
		if expr := strings.TrimSpace(c.Expression); expr == "" {
			errs = append(errs, field.Required(cp.Child("expression"), ""))
		} else if err := compileMatchCondition(expr, hasParams, stored[expr]); err != nil {
			errs = append(errs, celFieldError(cp.Child("expression"), expr, err))
		}
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			errs = append(errs, qualifiedName(c.Name, cp.Child("name"))...)
		}
		if c.Name != "" {
			if seen[c.Name] {
				errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
			}
			seen[c.Name] = true
		}
	}
	return errs
}

func compileMatchCondition(expr string, hasParams, stored bool) *apiservercel.Error {
	// A compiler per expression: compilers are not safe for concurrent
	// use, and match conditions cannot use variables (not even declare
	// them), as kube-apiserver's stateless compiler has it.
	c := celenv.NewConditionCompiler(hasParams)
	mode := celbase.NewExpressions
	if stored {
		mode = celbase.StoredExpressions
	}
	var cerr *apiservercel.Error
	if err := c.CompileIn(mode, expr, celenv.Decls{Authorizer: true}, cel.BoolType).Err(); err != nil {
		errors.As(err, &cerr)
	}
	return cerr
}

// celFieldError is a compile error as kube-apiserver reports it on the
// field holding expr.
func celFieldError(p *field.Path, expr string, err *apiservercel.Error) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(p, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(p, expr, err.Detail)
	default:
		return field.InternalError(p, err)
	}
}

func validateParamKind(k *admissionv1.ParamKind, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	av := p.Child("apiVersion")
	if k.APIVersion == "" {
		errs = append(errs, field.Required(av, ""))
	} else if strings.Count(k.APIVersion, "/") > 1 {
		errs = append(errs, field.Invalid(av, k.APIVersion, fmt.Sprintf("unexpected GroupVersion string: %v", k.APIVersion)))
	} else if k.APIVersion != "/" {
		group, version, found := strings.Cut(k.APIVersion, "/")
		if !found {
			group, version = "", k.APIVersion
		}
		// The same rules as an APIService's group and version.
		if group != "" {
			if msgs := isDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(av, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(av, k.APIVersion, "version must be specified"))
		} else if msgs := isDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(av, version, strings.Join(msgs, ",")))
		}
	} else {
		// "/" parses to an empty group and version.
		errs = append(errs, field.Invalid(av, k.APIVersion, "version must be specified"))
	}
	if k.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if msgs := isDNS1035Label(strings.ToLower(k.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// validateVariables checks names and presence of expressions; compiling
// them is the CEL layer's job.
func validateVariables(vars []admissionv1.Variable, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range vars {
		errs = append(errs, validateVariable(&vars[i], p.Index(i))...)
	}
	return errs
}

func validateVariable(v *admissionv1.Variable, vp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, field.Required(vp.Child("name"), "name is not specified"))
	} else if !isCELIdentifier(v.Name) {
		errs = append(errs, field.Invalid(vp.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(vp.Child("expression"), "expression is not specified"))
	}
	return errs
}

var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// isCELIdentifier follows the CEL grammar: [_a-zA-Z][_a-zA-Z0-9]* minus the
// reserved words.
func isCELIdentifier(s string) bool {
	if s == "" || celReserved[s] {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func hasNewlines(s string) bool { return strings.ContainsAny(s, "\n\r") }
