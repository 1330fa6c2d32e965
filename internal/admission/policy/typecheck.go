package policy

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// maxTypesToCheck bounds the kinds a policy is checked against.
const maxTypesToCheck = 10

// TypeChecker checks the validations and messageExpressions of a policy
// against the schemas of the kinds its matchConstraints name explicitly
// (no wildcards), and of its paramKind, as kube-apiserver's status
// controller does. Expressions there see typed objects: property names
// are escaped ('__dash__', '__dot__', '__slash__', '__underscores__',
// '__<keyword>__') and list types follow x-kubernetes-list-type.
type TypeChecker struct {
	// Schemas resolves kinds to OpenAPI schemas; kinds it does not know
	// are not checked.
	Schemas resolver.SchemaResolver
	// KindsFor maps a resource to its kinds.
	KindsFor func(schema.GroupVersionResource) ([]schema.GroupVersionKind, error)
	// Log receives schema resolution errors (nil: discarded).
	Log *slog.Logger
}

// Check returns the type checking warnings of p, ready for
// status.typeChecking.expressionWarnings.
func (c *TypeChecker) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	if c == nil || c.Schemas == nil || c.KindsFor == nil {
		return nil
	}
	tc := c.context(p)
	var warnings []admissionregistrationv1.ExpressionWarning
	path := field.NewPath("spec", "validations")
	for i, v := range p.Spec.Validations {
		if w := tc.check(v.Expression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: path.Index(i).Child("expression").String(), Warning: w})
		}
		if v.MessageExpression == "" {
			continue
		}
		if w := tc.check(v.MessageExpression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: path.Index(i).Child("messageExpression").String(), Warning: w})
		}
	}
	return warnings
}

// typeContext holds what the checks of one policy share.
type typeContext struct {
	kinds     []schema.GroupVersionKind
	types     []*apiservercel.DeclType // nil: the kind's schema is not exposed
	hasParams bool
	params    *apiservercel.DeclType
	variables []admissionregistrationv1.Variable
}

func (c *TypeChecker) context(p *admissionregistrationv1.ValidatingAdmissionPolicy) *typeContext {
	tc := &typeContext{variables: p.Spec.Variables}
	for _, gvk := range c.kindsToCheck(p) {
		t, err := c.declType(gvk)
		if err != nil {
			if !errors.Is(err, resolver.ErrSchemaNotFound) {
				c.log().Warn("schema resolution failed", "kind", gvk.String(), "err", err)
			}
			continue
		}
		tc.kinds = append(tc.kinds, gvk)
		tc.types = append(tc.types, t)
	}
	if pk := p.Spec.ParamKind; pk != nil {
		if kind, err := params.Kind(pk); err == nil {
			tc.hasParams = true
			if t, err := c.declType(kind); err == nil {
				tc.params = t
			}
		}
	}
	return tc
}

func (c *TypeChecker) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// typeNames keeps the names given to schema types unique.
var typeNames atomic.Uint64

func (c *TypeChecker) declType(gvk schema.GroupVersionKind) (*apiservercel.DeclType, error) {
	s, err := c.Schemas.ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	t := common.SchemaDeclType(&openapi.Schema{Schema: s}, true)
	if t == nil {
		return nil, nil
	}
	return t.MaybeAssignTypeName(fmt.Sprintf("%s%d", gvk.Kind, typeNames.Add(1))), nil
}

// kindsToCheck resolves the explicit groups, versions and resources of the
// policy's resource rules to at most maxTypesToCheck kinds, sorted.
func (c *TypeChecker) kindsToCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy) []schema.GroupVersionKind {
	mc := p.Spec.MatchConstraints
	if mc == nil {
		return nil
	}
	seen := map[schema.GroupVersionKind]bool{}
	count := 0
	sorted := func() []schema.GroupVersionKind {
		out := make([]schema.GroupVersionKind, 0, len(seen))
		for k := range seen {
			out = append(out, k)
		}
		slices.SortFunc(out, func(a, b schema.GroupVersionKind) int {
			return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
		})
		return out
	}
	for _, r := range mc.ResourceRules {
		groups, versions := explicit(r.APIGroups), explicit(r.APIVersions)
		var resources []string
		for _, res := range r.Resources {
			if !strings.ContainsAny(res, "*/") {
				resources = append(resources, res)
			}
		}
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		slices.Sort(resources)
		for _, g := range groups {
			for _, v := range versions {
				for _, res := range resources {
					kinds, err := c.KindsFor(schema.GroupVersionResource{Group: g, Version: v, Resource: res})
					if err != nil {
						continue
					}
					for _, k := range kinds {
						if k.Empty() {
							continue
						}
						seen[k] = true
						count++
						if count == maxTypesToCheck {
							return sorted()
						}
					}
				}
			}
		}
	}
	return sorted()
}

// explicit returns the sorted items, or nil if any is a wildcard.
func explicit(items []string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		if strings.Contains(it, "*") {
			return nil
		}
		out = append(out, it)
	}
	slices.Sort(out)
	return out
}

// check returns the warning text of one expression: per kind, the kind
// and the compiler's issues.
func (tc *typeContext) check(expr string) string {
	var msgs []string
	for i, gvk := range tc.kinds {
		env, err := tc.env(tc.types[i])
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("%v: type checking error: %v\n", gvk, err))
			continue
		}
		if _, issues := env.Compile(expr); issues != nil {
			msgs = append(msgs, fmt.Sprintf("%v: %s\n", gvk, issues.String()))
		}
	}
	return strings.Join(msgs, "\n")
}

// env builds the typed environment for one kind, with the policy
// variables declared by their inferred types.
func (tc *typeContext) env(object *apiservercel.DeclType) (*cel.Env, error) {
	request, namespace := celenv.RequestType(), celenv.NamespaceType()
	declTypes := []*apiservercel.DeclType{namespace, request}
	typeOf := func(t *apiservercel.DeclType) *cel.Type {
		if t == nil {
			return cel.DynType
		}
		declTypes = append(declTypes, t)
		return t.CelType()
	}
	objectType := typeOf(object)
	opts := []cel.EnvOption{
		cel.Variable(celenv.NamespaceVar, namespace.CelType()),
		cel.Variable(celenv.RequestVar, request.CelType()),
		cel.Variable(celenv.ObjectVar, objectType),
		cel.Variable(celenv.OldObjectVar, objectType),
	}
	if tc.hasParams {
		opts = append(opts, cel.Variable(celenv.ParamsVar, typeOf(tc.params)))
	}
	opts = append(opts,
		cel.Variable(celenv.AuthorizerVar, library.AuthorizerType),
		cel.Variable(celenv.RequestResourceAuthorizerVar, library.ResourceCheckType))
	vars := apiservercel.NewObjectType("kubernetes.variables", map[string]*apiservercel.DeclField{})
	env, err := celbase.StoredEnv(
		celbase.VersionedOptions{IntroducedVersion: celbase.IntroducedAlways, EnvOptions: opts, DeclTypes: declTypes},
		celbase.Variable(celenv.VariablesVar, vars))
	if err != nil {
		return nil, err
	}
	for _, v := range tc.variables {
		var out *cel.Type
		if ast, issues := env.Compile(v.Expression); issues == nil {
			out = ast.OutputType()
		}
		vars.Fields[v.Name] = apiservercel.NewDeclField(v.Name, celenv.DeclTypeOf(out), true, nil, nil)
	}
	return env, nil
}
