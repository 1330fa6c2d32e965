package celenv

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/lazy"
)

// Input holds the values of the admission variables for one evaluation.
// Nil values of Object, OldObject, Request, Namespace and Params are null;
// nil authorizers leave authorizer and authorizer.requestResource unbound,
// so expressions using them fail at evaluation.
type Input struct {
	Object, OldObject ref.Val
	Request           ref.Val
	Namespace         ref.Val
	Params            ref.Val

	Authorizer, RequestResourceAuthorizer ref.Val
}

// Activation binds an Input and the policy variables for a set of
// expressions evaluated together; variables are computed at most once per
// activation. Not safe for concurrent use.
type Activation struct {
	ctx       context.Context
	in        Input
	variables *lazy.MapValue
	// varCost is the cost of variables computed since the last expression
	// was charged.
	varCost int64
}

// NewActivation returns an activation for in.
func (c *Compiler) NewActivation(ctx context.Context, in Input) *Activation {
	a := &Activation{ctx: ctx, in: in}
	if len(c.variables) == 0 {
		a.variables = noVariables
		return a
	}
	a.variables = lazy.NewMapValue(c.vars.CelType())
	for _, v := range c.variables {
		a.variables.Append(v.name, a.variableFunc(v.name, v.expr))
	}
	return a
}

// noVariables is the variables value of policies without variables. With
// nothing to compute it is never written, so activations share it.
var noVariables = lazy.NewMapValue(emptyVariables.CelType())

func orNull(v ref.Val) ref.Val {
	if v == nil {
		return types.NullValue
	}
	return v
}

// ResolveName implements interpreter.Activation.
func (a *Activation) ResolveName(name string) (any, bool) {
	switch name {
	case ObjectVar:
		return orNull(a.in.Object), true
	case OldObjectVar:
		return orNull(a.in.OldObject), true
	case ParamsVar:
		return orNull(a.in.Params), true
	case RequestVar:
		return orNull(a.in.Request), true
	case NamespaceVar:
		return orNull(a.in.Namespace), true
	case AuthorizerVar:
		return a.in.Authorizer, a.in.Authorizer != nil
	case RequestResourceAuthorizerVar:
		return a.in.RequestResourceAuthorizer, a.in.RequestResourceAuthorizer != nil
	case VariablesVar:
		return a.variables, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *Activation) Parent() interpreter.Activation { return nil }

func (a *Activation) variableFunc(name string, e *Expression) lazy.GetFieldFunc {
	return func(*lazy.MapValue) ref.Val {
		if e.err != nil {
			return types.NewErr("composited variable %q fails to compile: %v", name, e.err)
		}
		v, details, err := e.program.ContextEval(a.ctx, a)
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

// Result is the outcome of one expression.
type Result struct {
	// Val is the value; nil when Err is set.
	Val ref.Val
	// Err is a compile or evaluation error of this expression.
	Err     *apiservercel.Error
	Elapsed time.Duration
}

// ErrOutOfBudgetDetail is kube-apiserver's text when a set of expressions
// exhausts its cost budget.
const ErrOutOfBudgetDetail = "validation failed due to running out of cost budget, no further validation rules will be run"

func outOfBudget() *apiservercel.Error {
	return &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: ErrOutOfBudgetDetail, Cause: apiservercel.ErrOutOfBudget}
}

// Eval evaluates e, charging its cost (and that of the variables it
// computed) to budget, and returns the budget left. An error ends the set
// of expressions the budget belongs to: the budget ran out or the cost
// could not be known. A nil e is a placeholder and yields an empty Result.
func (a *Activation) Eval(e *Expression, budget int64) (Result, int64, error) {
	var r Result
	if e == nil {
		return r, budget, nil
	}
	if e.err != nil {
		r.Err = &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: fmt.Sprintf("compilation error: %v", e.err), Cause: e.err}
		return r, budget, nil
	}
	start := time.Now()
	val, details, err := e.program.ContextEval(a.ctx, a)
	varCost := a.varCost
	a.varCost = 0
	if varCost > budget {
		return r, -1, outOfBudget()
	}
	budget -= varCost
	r.Elapsed = time.Since(start)
	if details == nil {
		return r, -1, &apiservercel.Error{Type: apiservercel.ErrorTypeInternal,
			Detail: fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", e.Source)}
	}
	cost := details.ActualCost()
	if cost == nil {
		return r, -1, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Cause: apiservercel.ErrOutOfBudget,
			Detail: fmt.Sprintf("runtime cost could not be calculated for expression: %v, no further expression will be run", e.Source)}
	}
	if *cost > math.MaxInt64 || int64(*cost) > budget {
		return r, -1, outOfBudget()
	}
	budget -= int64(*cost)
	if err != nil {
		r.Err = &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: fmt.Sprintf("expression '%v' resulted in error: %v", e.Source, err)}
		return r, budget, nil
	}
	r.Val = val
	return r, budget, nil
}

// EvalValue evaluates e on its own under budget, as each mutation is, and
// returns its value. Every error is returned: a compile error as it was
// compiled, an evaluation error, or the end of the budget.
func (a *Activation) EvalValue(e *Expression, budget int64) (ref.Val, error) {
	if e != nil && e.err != nil {
		return nil, e.err
	}
	r, _, err := a.Eval(e, budget)
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return r.Val, nil
}
