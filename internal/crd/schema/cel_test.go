package schema

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/cel/environment"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// TestCELBase checks that the rules compile against the one CEL base of
// the project: apiextensions' validator takes the environment package's
// cached EnvSet for the default compatibility version, and celbase hands
// out that same EnvSet.
func TestCELBase(t *testing.T) {
	if environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()) != celbase.BaseEnvSet() {
		t.Fatal("apiextensions' CEL validator would not use celbase.BaseEnvSet")
	}
}

// thing is an object of the Thing kind of compileYAML with the given spec
// (YAML).
func thing(t *testing.T, spec string) *unstructured.Unstructured {
	t.Helper()
	obj := object(t, "{apiVersion: schema-helper.example.com/v1, kind: Thing, metadata: {name: t, namespace: ns, resourceVersion: '1'}}")
	obj.Object["spec"] = object(t, spec).Object
	return obj
}

func TestRules(t *testing.T) {
	const rulesSchema = `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name.size() <= 5"
  message: short names only
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "!has(self.a) || self.a != 'bad'"
    - rule: "!has(self.b) || self.b != 'bad'"
      messageExpression: "''"
      message: b is bad
    - rule: "!has(self.c) || self.c != 'bad'"
      messageExpression: "'c is ' + self.c"
      reason: FieldValueRequired
      fieldPath: ".c"
    - rule: "!has(self.d) || self.d != 'bad'"
      messageExpression: "'line\\nbreak'"
    - rule: "!has(self.m) || !('bad' in self.m)"
      message: no bad key
      reason: FieldValueDuplicate
      fieldPath: ".m['bad']"
    - rule: "!has(self.nest) || self.nest.x == 'y'"
    - rule: "!has(self.port) || self.port > 80"
    properties:
      a: {type: string}
      b: {type: string}
      c: {type: string}
      d: {type: string}
      m: {type: object, additionalProperties: {type: string}}
      nest: {type: object, properties: {x: {type: string}}}
      port: {x-kubernetes-int-or-string: true}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
        x-kubernetes-validations:
        - rule: "self.kind == 'Pod' && self.metadata.name.startsWith('p')"
          message: a pod whose name starts with p
`
	v := compileYAML(t, rulesSchema)
	// A failed rule omits the value of an object; an evaluation error
	// gives the node's type instead.
	for _, c := range []struct {
		name, spec string
		objName    string
		want       []string
	}{
		{name: "valid", spec: `{a: ok, template: {apiVersion: v1, kind: Pod, metadata: {name: pod}}}`},
		{name: "no message", spec: `{a: bad}`, want: []string{`spec: Invalid value: failed rule: !has(self.a) || self.a != 'bad'`}},
		{name: "empty messageExpression falls back to message", spec: `{b: bad}`, want: []string{`spec: Invalid value: b is bad`}},
		{name: "messageExpression, reason, fieldPath", spec: `{c: bad}`, want: []string{`spec.c: Required value: c is bad`}},
		{name: "messageExpression with a line break falls back to the rule", spec: `{d: bad}`, want: []string{`spec: Invalid value: failed rule: !has(self.d) || self.d != 'bad'`}},
		{name: "duplicate at a map key", spec: `{m: {bad: x}}`, want: []string{`spec.m[bad]: Duplicate value`}},
		{name: "no such key", spec: `{nest: {}}`, want: []string{`spec: Invalid value: "object": no such key: x evaluating rule: !has(self.nest) || self.nest.x == 'y'`}},
		{
			name: "int-or-string overload at run time",
			spec: `{port: http}`,
			want: []string{`spec: Invalid value: "object": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: !has(self.port) || self.port > 80`},
		},
		{name: "int-or-string int", spec: `{port: 8080}`},
		{name: "root rule sees metadata", spec: `{}`, objName: "toolong", want: []string{`<nil>: Invalid value: short names only`}},
		{
			name: "embedded resource rule sees its metadata",
			spec: `{template: {apiVersion: v1, kind: Pod, metadata: {name: other}}}`,
			want: []string{`spec.template: Invalid value: a pod whose name starts with p`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := thing(t, c.spec)
			if c.objName != "" {
				obj.SetName(c.objName)
			}
			errs := v.ValidateCreate(context.Background(), obj)
			if diff := cmp.Diff(c.want, errorStrings(errs), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCostLimits checks kube-apiserver's two limits on rules: the cost of
// one evaluation (celbase.PerCallLimit) and that of all the rules of one
// object (celbase.RuntimeCELCostBudget), with their texts. startsWith
// costs a tenth of a unit per byte compared but takes microseconds, so
// the limits are reached quickly.
func TestCostLimits(t *testing.T) {
	v := compileYAML(t, `
type: object
properties:
  spec:
    type: object
    properties:
      list:
        type: array
        items: {type: string, maxLength: 2000000}
        x-kubernetes-validations:
        - rule: "self.all(x, x.startsWith(x))"
      each:
        type: array
        items:
          type: string
          maxLength: 2000000
          x-kubernetes-validations:
          - rule: "self.startsWith(self)"
`)
	big := strings.Repeat("a", 1_000_000) // 100,000 units per startsWith
	repeat := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = big
		}
		return out
	}
	for _, c := range []struct {
		name string
		spec map[string]any
		want []string
	}{
		{name: "within both", spec: map[string]any{"list": repeat(9), "each": repeat(9)}},
		{
			name: "one evaluation over the per-call limit",
			spec: map[string]any{"list": repeat(11)},
			want: []string{`spec.list: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, x.startsWith(x))`},
		},
		{
			name: "the object over its budget",
			spec: map[string]any{"each": repeat(101)},
			want: []string{`spec.each[99]: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := thing(t, `{}`)
			obj.Object["spec"] = c.spec
			errs := v.ValidateCreate(context.Background(), obj)
			if diff := cmp.Diff(c.want, errorStrings(errs), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRuleCompileError(t *testing.T) {
	crd := thingCRD(t, `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.nope == 1"
    - rule: "self.ok == 'x'"
      messageExpression: "1"
    properties:
      ok: {type: string}
      list:
        type: array
        items: {type: string}
        x-kubernetes-validations:
        - rule: "self.size()"
`)
	v, err := Compile(crd, "v1")
	var rce *RuleCompileError
	if !errors.Is(err, ErrRuleCompile) || !errors.As(err, &rce) {
		t.Fatalf("Compile error %v, want a RuleCompileError", err)
	}
	if v == nil {
		t.Fatal("no Version with the RuleCompileError")
	}
	want := []string{
		"openAPIV3Schema.properties[spec].properties[list].x-kubernetes-validations[0].rule: Invalid value: \"self.size()\": cel expression must evaluate to a bool",
		"openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: \"self.nope == 1\": compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^",
		"openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression: Invalid value: \"1\": messageExpression must evaluate to a string",
	}
	if diff := cmp.Diff(want, errorStrings(rce.Errors)); diff != "" {
		t.Errorf("rule errors (-want +got):\n%s", diff)
	}

	// The Version serves as kube-apiserver does: the node's rules fail.
	errs := v.ValidateCreate(context.Background(), thing(t, `{ok: x, list: [a]}`))
	wantErrs := []string{
		"spec.list: Invalid value: \"array\": rule compile error: cel expression must evaluate to a bool",
		"spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^",
	}
	if diff := cmp.Diff(wantErrs, errorStrings(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
