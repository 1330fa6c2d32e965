package webhook

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"

	authorizationv1 "k8s.io/api/authorization/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// MaxMatchConditions is the most match conditions one webhook may have.
const MaxMatchConditions = 64

// requestVar is the CEL variable holding the review spec.
const requestVar = "request"

// Matcher holds a webhook's compiled match conditions. It is immutable
// and safe for concurrent use; a nil *Matcher matches every request.
type Matcher struct {
	conds []condition
	// Selectors are converted for CEL only when an expression reads them:
	// most conditions do not, and the conversion allocates.
	usesFieldSelector bool
	usesLabelSelector bool
}

type condition struct {
	expr string
	prog cel.Program
}

// Len is the number of conditions.
func (m *Matcher) Len() int {
	if m == nil {
		return 0
	}
	return len(m.conds)
}

// celEnv declares `request` as the v1 SubjectAccessReviewSpec with the
// fields the documentation lists. Building it is expensive, so it happens
// once per process.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	field := func(name string, t *apiservercel.DeclType) *apiservercel.DeclField {
		return apiservercel.NewDeclField(name, t, false, nil, nil)
	}
	object := func(name string, fields ...*apiservercel.DeclField) *apiservercel.DeclType {
		m := make(map[string]*apiservercel.DeclField, len(fields))
		for _, f := range fields {
			m[f.Name] = f
		}
		return apiservercel.NewObjectType(name, m)
	}
	strings := apiservercel.NewListType(apiservercel.StringType, -1)
	requirement := object("kubernetes.SelectorRequirement",
		field("key", apiservercel.StringType),
		field("operator", apiservercel.StringType),
		field("values", strings))
	selector := func(name string) *apiservercel.DeclType {
		return object(name,
			field("rawSelector", apiservercel.StringType),
			field("requirements", apiservercel.NewListType(requirement, -1)))
	}
	resource := object("kubernetes.ResourceAttributes",
		field("namespace", apiservercel.StringType),
		field("verb", apiservercel.StringType),
		field("group", apiservercel.StringType),
		field("version", apiservercel.StringType),
		field("resource", apiservercel.StringType),
		field("subresource", apiservercel.StringType),
		field("name", apiservercel.StringType),
		field("fieldSelector", selector("kubernetes.FieldSelectorAttributes")),
		field("labelSelector", selector("kubernetes.LabelSelectorAttributes")))
	nonResource := object("kubernetes.NonResourceAttributes",
		field("path", apiservercel.StringType),
		field("verb", apiservercel.StringType))
	spec := object("kubernetes.SubjectAccessReviewSpec",
		field("resourceAttributes", resource),
		field("nonResourceAttributes", nonResource),
		field("user", apiservercel.StringType),
		field("groups", strings),
		field("extra", apiservercel.NewMapType(apiservercel.StringType, strings, -1)),
		field("uid", apiservercel.StringType))

	// The configuration file may have been written for a newer
	// kube-apiserver: compile with every library it could use.
	env, err := celbase.StoredEnv(celbase.Variable(requestVar, spec))
	if err != nil {
		return nil, fmt.Errorf("building the match condition CEL environment: %w", err)
	}
	return env, nil
})

// CompileMatchConditions validates and compiles a webhook's
// matchConditions with kube-apiserver's rules and messages: at most 64,
// no blank or duplicate expressions, each one must compile and be of type
// bool. Problems are reported under fldPath.Child("matchConditions"). No
// conditions give a nil Matcher.
func CompileMatchConditions(conds []apiserverv1.WebhookMatchCondition, fldPath *field.Path) (*Matcher, field.ErrorList) {
	path := fldPath.Child("matchConditions")
	if len(conds) > MaxMatchConditions {
		return nil, field.ErrorList{field.TooMany(path, len(conds), MaxMatchConditions)}
	}
	if len(conds) == 0 {
		return nil, nil
	}
	env, err := celEnv()
	if err != nil {
		return nil, field.ErrorList{field.InternalError(path, err)}
	}
	var errs field.ErrorList
	m := &Matcher{}
	seen := sets.New[string]()
	for i, c := range conds {
		p := path.Index(i).Child("expression")
		if strings.TrimSpace(c.Expression) == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		if seen.Has(c.Expression) {
			errs = append(errs, field.Duplicate(p, c.Expression))
			continue
		}
		seen.Insert(c.Expression)
		// Planned without interrupt checks, as kube-apiserver plans them.
		ast, prog, err := celbase.Compile(env, c.Expression, celbase.OneOf(cel.BoolType))
		if err != nil {
			if err.Type == apiservercel.ErrorTypeInternal {
				errs = append(errs, field.InternalError(p, err))
			} else {
				errs = append(errs, field.Invalid(p, c.Expression, err.Detail))
			}
			continue
		}
		f, l := selectorUse(ast)
		m.usesFieldSelector = m.usesFieldSelector || f
		m.usesLabelSelector = m.usesLabelSelector || l
		m.conds = append(m.conds, condition{expr: c.Expression, prog: prog})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return m, nil
}

// selectorUse reports whether the expression selects a field named
// fieldSelector or labelSelector anywhere (plainly or with ?.).
func selectorUse(ast *cel.Ast) (usesField, usesLabel bool) {
	celast.PreOrderVisit(ast.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		var name string
		switch e.Kind() {
		case celast.SelectKind:
			name = e.AsSelect().FieldName()
		case celast.CallKind:
			c := e.AsCall()
			if c.FunctionName() != operators.OptSelect || len(c.Args()) != 2 || c.Args()[1].Kind() != celast.LiteralKind {
				return
			}
			s, ok := c.Args()[1].AsLiteral().(types.String)
			if !ok {
				return
			}
			name = string(s)
		}
		switch name {
		case "fieldSelector":
			usesField = true
		case "labelSelector":
			usesLabel = true
		}
	}))
	return usesField, usesLabel
}

// Match evaluates the conditions against the spec, in order: a false one
// ends the evaluation with false (and no error, even if earlier ones
// failed); otherwise the errors, if any, are returned; otherwise true.
func (m *Matcher) Match(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	ok, _, err := m.match(ctx, spec)
	return ok, err
}

// match is Match that also reports whether any condition failed, for the
// error metric, which counts failures even when a later false decides.
func (m *Matcher) match(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (ok, failed bool, err error) {
	if m == nil || len(m.conds) == 0 {
		return true, false, nil
	}
	vars := map[string]any{requestVar: m.requestValue(spec)}
	var errs []error
	for _, c := range m.conds {
		out, _, err := c.prog.ContextEval(ctx, vars)
		if err != nil {
			errs = append(errs, fmt.Errorf("cel evaluation error: expression '%v' resulted in error: %w", c.expr, err))
			continue
		}
		b, isBool := out.(types.Bool)
		if !isBool {
			errs = append(errs, fmt.Errorf("cel evaluation error: expression '%v' eval result type should be bool but got %v", c.expr, out.Type()))
			continue
		}
		if !b {
			return false, len(errs) > 0, nil
		}
	}
	if len(errs) > 0 {
		return false, true, mark(ErrMatchCondition, utilerrors.NewAggregate(errs))
	}
	return true, false, nil
}

// requestValue is the spec as CEL sees it: absent attributes are absent
// keys, so has(request.resourceAttributes) tells the two kinds apart.
func (m *Matcher) requestValue(s *authorizationv1.SubjectAccessReviewSpec) map[string]any {
	groups := s.Groups
	if groups == nil {
		groups = []string{}
	}
	extra := make(map[string][]string, len(s.Extra))
	for k, v := range s.Extra {
		extra[k] = v
	}
	out := map[string]any{
		"user":   s.User,
		"groups": groups,
		"uid":    string(s.UID),
		"extra":  extra,
	}
	if r := s.ResourceAttributes; r != nil {
		ra := map[string]any{
			"namespace":   r.Namespace,
			"verb":        r.Verb,
			"group":       r.Group,
			"version":     r.Version,
			"resource":    r.Resource,
			"subresource": r.Subresource,
			"name":        r.Name,
		}
		if m.usesFieldSelector && r.FieldSelector != nil {
			reqs := make([]map[string]any, 0, len(r.FieldSelector.Requirements))
			for _, q := range r.FieldSelector.Requirements {
				reqs = append(reqs, requirementValue(q.Key, string(q.Operator), q.Values))
			}
			ra["fieldSelector"] = selectorValue(r.FieldSelector.RawSelector, reqs)
		}
		if m.usesLabelSelector && r.LabelSelector != nil {
			reqs := make([]map[string]any, 0, len(r.LabelSelector.Requirements))
			for _, q := range r.LabelSelector.Requirements {
				reqs = append(reqs, requirementValue(q.Key, string(q.Operator), q.Values))
			}
			ra["labelSelector"] = selectorValue(r.LabelSelector.RawSelector, reqs)
		}
		out["resourceAttributes"] = ra
	}
	if n := s.NonResourceAttributes; n != nil {
		out["nonResourceAttributes"] = map[string]any{"path": n.Path, "verb": n.Verb}
	}
	return out
}

func requirementValue(key, op string, values []string) map[string]any {
	if values == nil {
		values = []string{}
	}
	return map[string]any{"key": key, "operator": op, "values": values}
}

func selectorValue(raw string, reqs []map[string]any) map[string]any {
	v := map[string]any{}
	if raw != "" {
		v["rawSelector"] = raw
	}
	if len(reqs) > 0 {
		v["requirements"] = reqs
	}
	return v
}
