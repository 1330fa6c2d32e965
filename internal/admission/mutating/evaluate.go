package mutating

import (
	"context"
	"fmt"
	"math"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/lazy"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// activation binds the admission variables and the policy variables for
// one mutation expression. Variables are computed the first time the
// expression reads them, and their cost is charged with the expression's.
// Not safe for concurrent use.
type activation struct {
	ctx       context.Context
	in        celenv.Input
	variables ref.Val
	varCost   int64
}

// noVariables is the variables value of policies without variables; with
// nothing to compute it is never written and may be shared.
var noVariables = lazy.NewMapValue(emptyVariablesType.CelType())

func (p *compiledPolicy) newActivation(ctx context.Context, in celenv.Input) *activation {
	a := &activation{ctx: ctx, in: in, variables: noVariables}
	if len(p.variables) == 0 {
		return a
	}
	vars := lazy.NewMapValue(p.varsType.CelType())
	for _, v := range p.variables {
		vars.Append(v.name, a.variableFunc(v.name, v.expr))
	}
	a.variables = vars
	return a
}

func orNull(v ref.Val) ref.Val {
	if v == nil {
		return types.NullValue
	}
	return v
}

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case celenv.ObjectVar:
		return orNull(a.in.Object), true
	case celenv.OldObjectVar:
		return orNull(a.in.OldObject), true
	case celenv.ParamsVar:
		return orNull(a.in.Params), true
	case celenv.RequestVar:
		return orNull(a.in.Request), true
	case celenv.NamespaceVar:
		return orNull(a.in.Namespace), true
	case celenv.AuthorizerVar:
		return a.in.Authorizer, a.in.Authorizer != nil
	case celenv.RequestResourceAuthorizerVar:
		return a.in.RequestResourceAuthorizer, a.in.RequestResourceAuthorizer != nil
	case celenv.VariablesVar:
		return a.variables, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }

func (a *activation) variableFunc(name string, e *celenv.Expression) lazy.GetFieldFunc {
	return func(*lazy.MapValue) ref.Val {
		if err := e.Err(); err != nil {
			return types.NewErr("composited variable %q fails to compile: %v", name, err)
		}
		v, details, err := e.Program().ContextEval(a.ctx, a)
		if details == nil {
			return types.NewErr("unable to get evaluation details of variable %q", name)
		}
		cost := details.ActualCost()
		if cost == nil {
			return types.NewErr("unable to calculate cost of variable %q", name)
		}
		a.varCost = addCost(a.varCost, *cost)
		if err != nil {
			return types.NewErr("composited variable %q fails to evaluate: %v", name, err)
		}
		return v
	}
}

func addCost(acc int64, c uint64) int64 {
	if c > math.MaxInt64 || acc > math.MaxInt64-int64(c) {
		return math.MaxInt64
	}
	return acc + int64(c)
}

// errOutOfBudget is kube-apiserver's error when an expression and the
// variables it computed exceed the runtime cost budget.
func errOutOfBudget() *apiservercel.Error {
	return &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: celenv.ErrOutOfBudgetDetail, Cause: apiservercel.ErrOutOfBudget}
}

// eval evaluates a mutation expression with a fresh runtime cost budget,
// as kube-apiserver gives each mutation. Errors have kube-apiserver's
// texts: a compile error as compiled, an evaluation error as
// "expression '<source>' resulted in error: ...".
func (a *activation) eval(m *mutationExpr, budget int64) (ref.Val, error) {
	if m.err != nil {
		return nil, m.err
	}
	val, details, err := m.program.ContextEval(a.ctx, a)
	varCost := a.varCost
	a.varCost = 0
	if varCost > budget {
		return nil, errOutOfBudget()
	}
	budget -= varCost
	if details == nil {
		return nil, &apiservercel.Error{Type: apiservercel.ErrorTypeInternal,
			Detail: fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", m.source)}
	}
	cost := details.ActualCost()
	if cost == nil {
		return nil, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Cause: apiservercel.ErrOutOfBudget,
			Detail: fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", m.source)}
	}
	if *cost > math.MaxInt64 || int64(*cost) > budget {
		return nil, errOutOfBudget()
	}
	if err != nil {
		return nil, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: fmt.Sprintf("expression '%v' resulted in error: %v", m.source, err)}
	}
	return val, nil
}
