package cel

import (
	"fmt"

	"github.com/google/cel-go/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// ResultCheck vets the checked result type of an expression: it returns
// "" when t is acceptable, otherwise the problem, which becomes the
// compile error's detail.
type ResultCheck func(t *cel.Type) string

// OneOf accepts results of exactly one of the want types (cel.AnyType
// accepts every result), with kube-apiserver's messages.
func OneOf(want ...*cel.Type) ResultCheck {
	return func(got *cel.Type) string {
		for _, w := range want {
			if got.IsExactType(w) || cel.AnyType.IsExactType(w) {
				return ""
			}
		}
		if len(want) == 1 {
			return fmt.Sprintf("must evaluate to %v but got %v", want[0].String(), got.String())
		}
		return fmt.Sprintf("must evaluate to one of %v but got %v", want, got.String())
	}
}

// interruptChecks is shared: the option only sets a number.
var interruptChecks = cel.InterruptCheckFrequency(CheckFrequency)

// InterruptChecks makes a program check every CheckFrequency
// comprehension iterations whether its context is done, so that a
// cancelled request stops a long evaluation. kube-apiserver plans
// admission expressions (policies, webhook match conditions) with it, and
// authentication and authorization expressions without it.
func InterruptChecks() cel.ProgramOption { return interruptChecks }

// Compile parses, type-checks and plans expr in env with the program
// options opts (the base's cost limit and tracking are already in env).
// result, if not nil, vets the result type. Problems are reported as
// kube-apiserver words them: ErrorTypeInvalid with "compilation failed: "
// and every parse and check issue, each with its line, column and a
// pointer into the source (cel-go's Issues); ErrorTypeInvalid with the
// result check's detail; ErrorTypeInternal when planning fails.
func Compile(env *cel.Env, expr string, result ResultCheck, opts ...cel.ProgramOption) (*cel.Ast, cel.Program, *apiservercel.Error) {
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, nil, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid,
			Detail: "compilation failed: " + iss.String(), Cause: apiservercel.NewCompilationError(iss)}
	}
	if result != nil {
		if reason := result(ast.OutputType()); reason != "" {
			return nil, nil, &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: reason}
		}
	}
	prog, err := env.Program(ast, opts...)
	if err != nil {
		return nil, nil, &apiservercel.Error{Type: apiservercel.ErrorTypeInternal,
			Detail: "program instantiation failed: " + err.Error(), Cause: err}
	}
	return ast, prog, nil
}
