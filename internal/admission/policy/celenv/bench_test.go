package celenv

import (
	"testing"

	"github.com/google/cel-go/cel"
)

// BenchmarkCompile is the cost of compiling one policy's expressions at
// load: a policy without variables (which shares its environment) and one
// with two variables (which extends the environment with their types).
func BenchmarkCompile(b *testing.B) {
	b.Run("no variables", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := NewCompiler(false, nil)
			if e := c.Compile("object.metadata.name.startsWith('web-') && request.operation == 'CREATE'", Decls{}, cel.BoolType); e.Err() != nil {
				b.Fatal(e.Err())
			}
		}
	})
	b.Run("two variables", func(b *testing.B) {
		vars := []Variable{
			{Name: "name", Expression: "object.metadata.name"},
			{Name: "isWeb", Expression: "variables.name.startsWith('web-')"},
		}
		b.ReportAllocs()
		for b.Loop() {
			c := NewCompiler(true, vars)
			if e := c.Compile("variables.isWeb && params.spec.enabled", Decls{Params: true}, cel.BoolType); e.Err() != nil {
				b.Fatal(e.Err())
			}
		}
	})
}
