package mutating

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// TestEvalBudget charges a mutation for the variables it computes.
func TestEvalBudget(t *testing.T) {
	pol := compilePolicy(decodePolicy(t, `  variables:
  - name: big
    expression: '[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, a+b))'
`+applyConfig(`Object{metadata: Object.metadata{labels: {"n": string(variables.big.size() + variables.big.size())}}}`)))
	m := pol.mutations[0]
	tests := []struct {
		budget int64
		want   string
	}{
		{1_000_000, ""},
		{300, celenv.ErrOutOfBudgetDetail},
		{1, celenv.ErrOutOfBudgetDetail},
	}
	for _, tc := range tests {
		act := pol.Compiler.NewActivation(context.Background(), celenv.Input{})
		v, err := act.EvalValue(m.expr, tc.budget)
		if tc.want == "" {
			if err != nil || v == nil {
				t.Errorf("budget %d: %v, %v", tc.budget, v, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want || !errors.Is(err, apiservercel.ErrOutOfBudget) {
			t.Errorf("budget %d: err = %v", tc.budget, err)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, spec, want string
	}{
		{"patch types only in mutations", `  matchConditions:
  - name: c
    expression: 'Object{} == Object{}'
` + applyConfig(`Object{}`), "undeclared reference to 'Object'"},
		{"variables may not build patches", `  variables:
  - name: v
    expression: 'JSONPatch{op: "add"}'
` + applyConfig(`Object{}`), "undeclared reference to 'JSONPatch'"},
		{"JSONPatch must be a list", jsonPatch(`JSONPatch{op: "add", path: "/a"}`), "must evaluate to list(JSONPatch) but got JSONPatch"},
		{"apply configuration of another type", applyConfig(`Object.spec{}`), "must evaluate to Object but got Object.spec"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := decodePolicy(t, tc.spec)
			pol := compilePolicy(src)
			var errs []string
			for _, e := range pol.Conditions {
				if e.Err() != nil {
					errs = append(errs, e.Err().Error())
				}
			}
			// A variable's compile error shows when it is read.
			for _, v := range src.Spec.Variables {
				read := pol.Compiler.Compile("variables."+v.Name, celenv.Decls{}, cel.AnyType)
				if _, err := pol.Compiler.NewActivation(context.Background(), celenv.Input{}).EvalValue(read, 1_000_000); err != nil {
					errs = append(errs, err.Error())
				}
			}
			for _, m := range pol.mutations {
				if m.expr.Err() != nil {
					errs = append(errs, m.expr.Err().Error())
				}
			}
			if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
				t.Fatalf("errors %q, want one with %q", errs, tc.want)
			}
		})
	}
}

// TestMissingMutation: a mutation without the expression its patch type
// names (which API validation refuses) fails every request, as in
// kube-apiserver.
func TestMissingMutation(t *testing.T) {
	p := newPlugin(t, options(newEnv()), podPolicy("p", `  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
`))
	err, _ := admit(p, podRequest("CREATE", pod("default", "web", nil), nil))
	want := "Internal error occurred: expected 1 compiled evaluators for policy p, got 0"
	if se := statusOf(t, err); se.ErrStatus.Message != want {
		t.Fatalf("message %q", se.ErrStatus.Message)
	}
}
