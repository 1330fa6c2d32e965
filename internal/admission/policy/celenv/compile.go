package celenv

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types/traits"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// Variable is a named expression of a policy.
type Variable struct {
	Name       string
	Expression string
}

// Compiler compiles the expressions of one policy. It is used by one
// goroutine while the policy is loaded; the compiled expressions and the
// activations it makes are then safe for concurrent use.
type Compiler struct {
	params bool
	// vars is the type of the variables variable; compiling a variable adds
	// its field.
	vars *apiservercel.DeclType
	// shared is set for policies without variables, stateless for
	// compilers that do not declare variables at all.
	shared, stateless bool
	envs              [2][declsCombinations]*cel.Env
	errs              [2][declsCombinations]error

	variables []compiledVariable
	used      Uses
}

type compiledVariable struct {
	name string
	expr *Expression
}

// NewCompiler compiles the policy variables in order; hasParams declares
// params. Expressions are compiled as stored expressions, with every
// library this release knows, as kube-apiserver evaluates objects that its
// API validation already admitted.
func NewCompiler(hasParams bool, variables []Variable) *Compiler {
	c := &Compiler{params: hasParams, shared: len(variables) == 0, vars: emptyVariables}
	if !c.shared {
		c.vars = apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})
	}
	for _, v := range variables {
		c.AddVariable(celbase.StoredExpressions, v)
	}
	return c
}

// NewValidationCompiler returns a compiler without variables yet, for API
// validation, which adds them with AddVariable in the environment each
// calls for.
func NewValidationCompiler(hasParams bool) *Compiler {
	return &Compiler{params: hasParams, vars: apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})}
}

// NewConditionCompiler returns a compiler whose expressions cannot use
// variables (not even declare them), as kube-apiserver's API validation
// compiles match conditions.
func NewConditionCompiler(hasParams bool) *Compiler {
	return &Compiler{params: hasParams, stateless: true, vars: emptyVariables}
}

// AddVariable compiles a variable in the given environment; later
// expressions see it as a field of variables typed by its result.
func (c *Compiler) AddVariable(mode celbase.EnvType, v Variable) *Expression {
	// Variables may use the authorizer; messages that read them may not,
	// and then fail at evaluation as in kube-apiserver.
	e := c.CompileIn(mode, v.Expression, Decls{Params: c.params, Authorizer: true}, cel.AnyType, cel.DynType)
	if c.shared || c.stateless {
		return e
	}
	c.vars.Fields[v.Name] = apiservercel.NewDeclField(v.Name, DeclTypeOf(e.OutputType), true, nil, nil)
	c.addVariable(v.Name, e)
	return e
}

// addVariable keeps the last definition of a name, as kube-apiserver does.
func (c *Compiler) addVariable(name string, e *Expression) {
	for i := range c.variables {
		if c.variables[i].name == name {
			c.variables[i].expr = e
			return
		}
	}
	c.variables = append(c.variables, compiledVariable{name: name, expr: e})
}

func modeIndex(mode celbase.EnvType) int {
	if mode == celbase.NewExpressions {
		return 1
	}
	return 0
}

func (c *Compiler) env(mode celbase.EnvType, d Decls) (*cel.Env, error) {
	d.Params = c.params
	m, i := modeIndex(mode), d.index()
	if c.envs[m][i] != nil || c.errs[m][i] != nil {
		return c.envs[m][i], c.errs[m][i]
	}
	set, err := c.envSet(d)
	if err == nil {
		c.envs[m][i], err = set.Env(mode)
	}
	c.errs[m][i] = err
	return c.envs[m][i], err
}

func (c *Compiler) envSet(d Decls) (*celbase.EnvSet, error) {
	switch {
	case c.stateless:
		return admissionEnvSet(d)
	case c.shared:
		return sharedEnvSet(d)
	}
	set, err := admissionEnvSet(d)
	if err != nil {
		return nil, err
	}
	return extendWithVariables(set, c.vars)
}

// Expression is a compiled expression. A compile error is kept and
// reported when the expression is evaluated, as kube-apiserver does.
type Expression struct {
	Source string
	// OutputType is the checked result type; nil after a compile error.
	OutputType *cel.Type

	program cel.Program
	ast     *cel.Ast
	env     *cel.Env
	err     *apiservercel.Error
}

// Err returns the compile error, or nil.
func (e *Expression) Err() error {
	if e == nil || e.err == nil {
		return nil
	}
	return e.err
}

// Compile compiles expr as a stored expression; its result must have one
// of the want types (cel.AnyType accepts every result).
func (c *Compiler) Compile(expr string, d Decls, want ...*cel.Type) *Expression {
	return c.CompileIn(celbase.StoredExpressions, expr, d, want...)
}

// CompileIn compiles expr in the given environment: NewExpressions for an
// expression that API validation sees for the first time, which may only
// use what the previous minor release knows.
func (c *Compiler) CompileIn(mode celbase.EnvType, expr string, d Decls, want ...*cel.Type) *Expression {
	out := &Expression{Source: expr}
	env, err := c.env(mode, d)
	if err != nil {
		out.err = &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: fmt.Sprintf("unexpected error loading CEL environment: %v", err)}
		return out
	}
	ast, prog, cerr := celbase.Compile(env, expr, celbase.OneOf(want...), celbase.InterruptChecks())
	if cerr != nil {
		out.err = cerr
		return out
	}
	out.OutputType, out.program, out.ast, out.env = ast.OutputType(), prog, ast, env
	c.used |= out.uses()
	return out
}

// EstimateCost returns the static cost estimate of the expression under
// the Kubernetes cost model. Untyped inputs (object, oldObject, params) are
// assumed as large as a request may be.
func (e *Expression) EstimateCost() (checker.CostEstimate, error) {
	if e.ast == nil {
		return checker.CostEstimate{}, fmt.Errorf("%w: expression did not compile", ErrNotCompiled)
	}
	return e.env.EstimateCost(e.ast, &library.CostEstimator{SizeEstimator: sizeEstimator{}})
}

// sizeEstimator bounds unknown sizes by the largest request.
type sizeEstimator struct{}

func (sizeEstimator) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: uint64(celbase.MaxRequestSizeBytes)}
}

func (sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// DeclTypeOf converts a variable's result type for the variables object
// type, so that later expressions are checked against it.
func DeclTypeOf(t *cel.Type) *apiservercel.DeclType {
	if t == nil {
		return apiservercel.DynType
	}
	switch t {
	case cel.AnyType:
		return apiservercel.AnyType
	case cel.BoolType:
		return apiservercel.BoolType
	case cel.BytesType:
		return apiservercel.BytesType
	case cel.DoubleType:
		return apiservercel.DoubleType
	case cel.DurationType:
		return apiservercel.DurationType
	case cel.IntType:
		return apiservercel.IntType
	case cel.NullType:
		return apiservercel.NullType
	case cel.StringType:
		return apiservercel.StringType
	case cel.TimestampType:
		return apiservercel.TimestampType
	case cel.UintType:
		return apiservercel.UintType
	}
	if t.HasTrait(traits.ContainerType) && t.HasTrait(traits.IndexerType) {
		switch p := t.Parameters(); len(p) {
		case 1:
			return apiservercel.NewListType(DeclTypeOf(p[0]), -1)
		case 2:
			return apiservercel.NewMapType(DeclTypeOf(p[0]), DeclTypeOf(p[1]), -1)
		}
	}
	return apiservercel.DynType
}

// Program returns the compiled program, nil after a compile error.
func (e *Expression) Program() cel.Program { return e.program }
