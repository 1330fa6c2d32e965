package cel

import (
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// TestLimits pins kube-apiserver 1.37's values, which the documentation
// of this package and of its users quotes: a new k8s.io/apiserver that
// changes one fails here rather than silently.
func TestLimits(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{name: "PerCallLimit", got: PerCallLimit, want: 1_000_000},
		{name: "RuntimeCELCostBudget", got: RuntimeCELCostBudget, want: 10_000_000},
		{name: "RuntimeCELCostBudgetMatchConditions", got: RuntimeCELCostBudgetMatchConditions, want: 2_500_000},
		{name: "CheckFrequency", got: CheckFrequency, want: 100},
		{name: "MaxRequestSizeBytes", got: MaxRequestSizeBytes, want: 3 << 20},
		{name: "MaxEvaluatedMessageExpressionSizeBytes", got: MaxEvaluatedMessageExpressionSizeBytes, want: 5 << 10},
		{name: "MaxExpressionCodePoints", got: MaxExpressionCodePoints, want: 100_000},
		{name: "MaxAuditAnnotationValueExpressionLength", got: MaxAuditAnnotationValueExpressionLength, want: 5 << 10},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestBaseEnvSetBuiltOnce(t *testing.T) {
	if BaseEnvSet() != BaseEnvSet() {
		t.Error("BaseEnvSet built twice")
	}
}

func testEnv(t *testing.T) *cel.Env {
	t.Helper()
	env, err := StoredEnv(Variable("x", apiservercel.StringType))
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestCompile(t *testing.T) {
	env := testEnv(t)
	for _, c := range []struct {
		name, expr string
		result     ResultCheck
		errType    apiservercel.ErrorType
		// contains are substrings of the detail, in order.
		contains []string
	}{
		{name: "ok", expr: "x.startsWith('a')", result: OneOf(cel.BoolType)},
		{name: "any result", expr: "x", result: OneOf(cel.AnyType)},
		{name: "no check", expr: "size(x)"},
		{
			name: "every problem with its location", expr: "y == 1 &&\n  x.nope()", result: OneOf(cel.BoolType),
			errType:  apiservercel.ErrorTypeInvalid,
			contains: []string{"compilation failed: ", "<input>:1:1: undeclared reference to 'y'", "<input>:2:9: undeclared reference to 'nope'"},
		},
		{
			name: "parse error", expr: "x ==", result: OneOf(cel.BoolType),
			errType: apiservercel.ErrorTypeInvalid, contains: []string{"compilation failed: ", "<input>:1:5: Syntax error"},
		},
		{
			name: "wrong result", expr: "size(x)", result: OneOf(cel.BoolType),
			errType: apiservercel.ErrorTypeInvalid, contains: []string{"must evaluate to bool but got int"},
		},
		{
			name: "none of several", expr: "size(x)", result: OneOf(cel.BoolType, cel.StringType),
			errType: apiservercel.ErrorTypeInvalid, contains: []string{"must evaluate to one of [bool string] but got int"},
		},
		{
			name: "too long", expr: strings.Repeat(" ", MaxExpressionCodePoints) + "x", result: OneOf(cel.StringType),
			errType: apiservercel.ErrorTypeInvalid, contains: []string{"compilation failed: ", "expression code point size exceeds limit: size: 100001, limit 100000"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ast, prog, err := Compile(env, c.expr, c.result, InterruptChecks())
			if c.contains == nil {
				if err != nil || ast == nil || prog == nil {
					t.Fatalf("Compile = (%v, %v, %v), want a program", ast, prog, err)
				}
				return
			}
			if err == nil {
				t.Fatal("Compile succeeded, want an error")
			}
			if err.Type != c.errType {
				t.Errorf("type %q, want %q", err.Type, c.errType)
			}
			rest := err.Detail
			for _, s := range c.contains {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("detail %q lacks %q (in order)", err.Detail, s)
				}
				rest = rest[i+len(s):]
			}
		})
	}
}

// TestPerCallLimit checks that every program of an extended environment
// keeps the base's cost limit.
func TestPerCallLimit(t *testing.T) {
	_, prog, cerr := Compile(testEnv(t), "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(i, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(j, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(k, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(l, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(m, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(n, x.size() > 0))))))", OneOf(cel.BoolType))
	if cerr != nil {
		t.Fatal(cerr)
	}
	_, _, err := prog.Eval(map[string]any{"x": "a"})
	if err == nil || !strings.Contains(err.Error(), "operation cancelled: actual cost limit exceeded") {
		t.Fatalf("Eval error %v, want the cost limit", err)
	}
}

// TestVersions checks the two environments: new expressions may use only
// what CompatibilityVersion (1.36) knows, stored ones what 1.37 added too
// (here list.includes).
func TestVersions(t *testing.T) {
	if v := CompatibilityVersion().String(); v != "1.36" {
		t.Errorf("CompatibilityVersion = %s, want 1.36", v)
	}
	set, err := Extend(BaseEnvSet(), Variable("x", apiservercel.StringType))
	if err != nil {
		t.Fatal(err)
	}
	const expr = "[x].includes('a')"
	for _, c := range []struct {
		mode EnvType
		ok   bool
	}{{mode: StoredExpressions, ok: true}, {mode: NewExpressions, ok: false}} {
		env, err := set.Env(c.mode)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Compile(env, expr, OneOf(cel.BoolType)); (err == nil) != c.ok {
			t.Errorf("%s: Compile(%q) error %v, want ok=%v", c.mode, expr, err, c.ok)
		}
	}
}
