package jwt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	apiservercel "k8s.io/apiserver/pkg/cel"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// The CEL variables the expressions see, as documented for
// AuthenticationConfiguration.
const (
	claimsVar = "claims"
	userVar   = "user"
)

// celEnvs are the two environments: claims for claim validation rules and
// claim mappings, user for user validation rules. Building them is
// expensive, so it happens once per process.
type celEnvs struct {
	claims *cel.Env
	user   *cel.Env
}

var loadEnvs = sync.OnceValues(func() (*celEnvs, error) {
	// claims is a map of claim name to any JSON value.
	claimsType := apiservercel.NewMapType(apiservercel.StringType, apiservercel.AnyType, -1)

	// user is a typed object so that a misspelt field is a compile error.
	field := func(name string, t *apiservercel.DeclType) *apiservercel.DeclField {
		return apiservercel.NewDeclField(name, t, false, nil, nil)
	}
	userType := apiservercel.NewObjectType("kubernetes.UserInfo", map[string]*apiservercel.DeclField{
		"username": field("username", apiservercel.StringType),
		"uid":      field("uid", apiservercel.StringType),
		"groups":   field("groups", apiservercel.NewListType(apiservercel.StringType, -1)),
		"extra": field("extra", apiservercel.NewMapType(apiservercel.StringType,
			apiservercel.NewListType(apiservercel.StringType, -1), -1)),
	})

	// Expressions come from a file the administrator wrote and that may
	// have been written for a newer kube-apiserver, so compile with the
	// widest set of libraries (as kube-apiserver does for this file).
	var envs celEnvs
	var err error
	if envs.claims, err = celbase.StoredEnv(celbase.Variable(claimsVar, claimsType)); err != nil {
		return nil, fmt.Errorf("building the claims CEL environment: %w", err)
	}
	if envs.user, err = celbase.StoredEnv(celbase.Variable(userVar, userType)); err != nil {
		return nil, fmt.Errorf("building the user CEL environment: %w", err)
	}
	return &envs, nil
})

// resultKind says which result types an expression may have.
type resultKind int

const (
	resultBool       resultKind = iota // validation rules
	resultString                       // username, uid
	resultStringList                   // groups, extra: a string or a list of strings
)

// program is one compiled expression.
type program struct {
	expr string
	prog cel.Program
	ast  *cel.Ast
}

// compileExpr parses, type-checks and plans expr. The error is the detail
// for a field.Invalid at the expression's path.
func compileExpr(env *cel.Env, expr string, want resultKind) (*program, error) {
	// Planned without interrupt checks, as kube-apiserver plans them.
	ast, prog, err := celbase.Compile(env, expr, func(t *cel.Type) string { return checkOutputType(t, want) })
	if err != nil {
		return nil, err
	}
	return &program{expr: expr, prog: prog, ast: ast}, nil
}

// checkOutputType rejects expressions whose static type can never give the
// wanted result. kube-apiserver only checks validation rules here and
// leaves mappings to run time; a mapping that is statically an int (say)
// would fail on every token, so it is reported at load instead.
func checkOutputType(t *cel.Type, want resultKind) string {
	switch want {
	case resultBool:
		if t.IsExactType(cel.BoolType) {
			return ""
		}
		return "must evaluate to bool"
	case resultString:
		if t.IsExactType(cel.StringType) || isDyn(t) {
			return ""
		}
		return "must evaluate to string"
	default:
		if t.IsExactType(cel.StringType) || isDyn(t) || t.IsExactType(cel.NullType) {
			return ""
		}
		if t.Kind() == types.ListKind {
			if p := t.Parameters(); len(p) == 1 && (p[0].IsExactType(cel.StringType) || isDyn(p[0])) {
				return ""
			}
		}
		return "must evaluate to one of [string list(string)]"
	}
}

func isDyn(t *cel.Type) bool {
	k := t.Kind()
	return k == types.DynKind || k == types.AnyKind
}

// eval runs p against one variable.
func (p *program) eval(ctx context.Context, name string, value ref.Val) (ref.Val, error) {
	out, _, err := p.prog.ContextEval(ctx, map[string]any{name: value})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// usesClaim reports whether the expression selects claims.<name> or
// claims.?<name> anywhere. Index access (claims["email"]) is not counted,
// matching kube-apiserver's check.
func usesClaim(ast *cel.Ast, name string) bool {
	found := false
	celast.PostOrderVisit(ast.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if found {
			return
		}
		switch e.Kind() {
		case celast.SelectKind:
			s := e.AsSelect()
			found = isIdent(s.Operand(), claimsVar) && s.FieldName() == name
		case celast.CallKind:
			c := e.AsCall()
			if c.FunctionName() == operators.OptSelect && !c.IsMemberFunction() && len(c.Args()) == 2 {
				found = isIdent(c.Args()[0], claimsVar) && isStringConst(c.Args()[1], name)
			}
		}
	}))
	return found
}

func isIdent(e celast.Expr, name string) bool {
	return e != nil && e.Kind() == celast.IdentKind && e.AsIdent() == name
}

func isStringConst(e celast.Expr, s string) bool {
	if e == nil || e.Kind() != celast.LiteralKind {
		return false
	}
	v, ok := e.AsLiteral().(types.String)
	return ok && string(v) == s
}

// claimsValue adapts the decoded claims for CEL. Claim names written with
// Kubernetes' CEL escaping (foo__dot__bar for "foo.bar") are found too.
func claimsValue(claims map[string]any) ref.Val {
	return unescaping(types.DefaultTypeAdapter.NativeToValue(claims))
}

// userValue adapts the mapped user for the user validation rules.
func userValue(name, uid string, groups []string, extra map[string][]string) ref.Val {
	if groups == nil {
		groups = []string{}
	}
	if extra == nil {
		extra = map[string][]string{}
	}
	return unescaping(types.DefaultTypeAdapter.NativeToValue(map[string]any{
		"username": name, "uid": uid, "groups": groups, "extra": extra,
	}))
}

// unescaping wraps maps and lists so that every map below them also
// accepts escaped keys.
func unescaping(v ref.Val) ref.Val {
	switch t := v.(type) {
	case traits.Mapper:
		return unescapingMap{t}
	case traits.Lister:
		return unescapingList{t}
	}
	return v
}

type unescapingMap struct{ traits.Mapper }

func (m unescapingMap) Find(key ref.Val) (ref.Val, bool) {
	if s, ok := key.(types.String); ok && strings.Contains(string(s), "__") {
		if name, ok := apiservercel.Unescape(string(s)); ok && name != string(s) {
			key = types.String(name)
		}
	}
	v, found := m.Mapper.Find(key)
	if !found {
		return v, false
	}
	return unescaping(v), true
}

func (m unescapingMap) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found {
		return types.NewErr("no such key: %v", key)
	}
	return v
}

type unescapingList struct{ traits.Lister }

func (l unescapingList) Get(i ref.Val) ref.Val { return unescaping(l.Lister.Get(i)) }

// asString converts an expression result that must be a string.
func asString(v ref.Val) (string, bool) {
	s, ok := v.(types.String)
	return string(s), ok
}

// asStringList converts a groups or extra result. A string is a list of
// one; "", [] and null are no value at all; empty strings in a list are
// dropped.
func asStringList(v ref.Val) ([]string, error) {
	errType := errors.New("expression must return a string or a list of strings")
	switch t := v.(type) {
	case types.String:
		if t == "" {
			return nil, nil
		}
		return []string{string(t)}, nil
	case types.Null:
		return nil, nil
	case traits.Lister:
		var out []string
		it := t.Iterator()
		for it.HasNext() == types.True {
			s, ok := it.Next().(types.String)
			if !ok {
				return nil, errType
			}
			if s != "" {
				out = append(out, string(s))
			}
		}
		return out, nil
	}
	return nil, errType
}
