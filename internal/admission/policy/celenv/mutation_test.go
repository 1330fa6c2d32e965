package celenv

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// TestPatchDecls: only expressions compiled with Decls.Patch may build
// patches, and they see the policy's variables like the others.
func TestPatchDecls(t *testing.T) {
	tests := []struct {
		name, expr string
		decls      Decls
		want       *cel.Type
		wantErr    string
	}{
		{"apply configuration", `Object{metadata: Object.metadata{labels: {"a": variables.v}}}`, Decls{Patch: true}, ApplyConfigurationType, ""},
		{"JSON patch", `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a/b"), value: variables.v}]`, Decls{Patch: true, Authorizer: true}, JSONPatchListType, ""},
		{"params", `Object{metadata: Object.metadata{name: params.x}}`, Decls{Patch: true}, ApplyConfigurationType, ""},
		{"without Patch", `Object{}`, Decls{Authorizer: true}, ApplyConfigurationType, "undeclared reference to 'Object'"},
		{"escapeKey without Patch", `jsonpatch.escapeKey("a")`, Decls{}, cel.StringType, "undeclared reference to 'escapeKey'"},
		{"wrong result", `JSONPatch{op: "add", path: "/a"}`, Decls{Patch: true}, JSONPatchListType, "must evaluate to list(JSONPatch) but got JSONPatch"},
		{"nested Object", `Object.spec{}`, Decls{Patch: true}, ApplyConfigurationType, "must evaluate to Object but got Object.spec"},
	}
	for _, shared := range []bool{false, true} {
		for _, tc := range tests {
			name := tc.name
			var vars []Variable
			if !shared {
				vars = []Variable{{Name: "v", Expression: "'x'"}}
			} else {
				name += " without variables"
				if strings.Contains(tc.expr, "variables") {
					continue
				}
			}
			t.Run(name, func(t *testing.T) {
				c := NewCompiler(true, vars)
				e := c.Compile(tc.expr, tc.decls, tc.want)
				if tc.wantErr == "" {
					if err := e.Err(); err != nil {
						t.Fatal(err)
					}
					return
				}
				if err := e.Err(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			})
		}
	}
}

func TestEvalValue(t *testing.T) {
	c := NewCompiler(false, []Variable{{Name: "big", Expression: "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, a+b))"}})
	tests := []struct {
		name, expr string
		budget     int64
		want       string // the value, or the error with "error: " before it
	}{
		{"value", "string(variables.big.size())", 1_000_000, "10"},
		{"compile error as compiled", "nope", 1_000_000, "error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^"},
		{"evaluation error", "object.x", 1_000_000, "error: expression 'object.x' resulted in error: no such key: x"},
		{"variables are charged", "string(variables.big.size())", 300, "error: " + ErrOutOfBudgetDetail},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := c.Compile(tc.expr, Decls{}, cel.AnyType)
			in := Input{Object: ObjectVal(testPod(), podGVK)}
			v, err := c.NewActivation(context.Background(), in).EvalValue(e, tc.budget)
			got := ""
			if err != nil {
				got = "error: " + err.Error()
			} else {
				got = v.Value().(string)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.budget < 1_000_000 && !errors.Is(err, apiservercel.ErrOutOfBudget) {
				t.Errorf("%v is not ErrOutOfBudget", err)
			}
		})
	}
}
