package validation

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/portcullis/portcullis/internal/defaults"
)

// TestValidatingAdmissionPolicyExpressions covers the compilation of a
// policy's CEL expressions, reported next to each item's structural errors
// in field order as kube-apiserver does.
func TestValidatingAdmissionPolicyExpressions(t *testing.T) {
	type mut = func(*admissionv1.ValidatingAdmissionPolicy)
	validate := func(exprs ...string) mut {
		return func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations = nil
			for _, e := range exprs {
				p.Spec.Validations = append(p.Spec.Validations, admissionv1.Validation{Expression: e})
			}
		}
	}
	tests := []struct {
		name   string
		mutate mut
		old    mut
		want   []string
	}{
		{name: "clean", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "m", Expression: "request.operation == 'CREATE'"}}
			p.Spec.Variables = []admissionv1.Variable{{Name: "v", Expression: "object.spec.containers.size()"}}
			p.Spec.Validations = []admissionv1.Validation{{Expression: "variables.v < 3", MessageExpression: "'n=' + string(variables.v)"}}
			p.Spec.AuditAnnotations = []admissionv1.AuditAnnotation{{Key: "a", ValueExpression: "string(variables.v)"}}
		}},
		{name: "syntax", mutate: validate("object.spec =="), want: []string{
			`spec.validations[0].expression: Invalid value: "object.spec ==": compilation failed: ERROR: <input>:1:15: Syntax error`}},
		{name: "type", mutate: validate("'x'"), want: []string{`spec.validations[0].expression: Invalid value: "'x'": must evaluate to bool but got string`}},
		{name: "messageExpression without authorizer", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations = []admissionv1.Validation{{Expression: "true", MessageExpression: "string(authorizer.path('/').check('get').allowed())"}}
		}, want: []string{
			`spec.validations[0].messageExpression: Invalid value: "string(authorizer.path('/').check('get').allowed())": compilation failed: ERROR: <input>:1:8: undeclared reference to 'authorizer'`}},
		{name: "params without paramKind", mutate: validate("params.x == 1"), want: []string{
			`spec.validations[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`}},
		{name: "params with paramKind", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			p.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "m", Expression: "params != null"}}
			validate("params.x == 1")(p)
		}},
		{name: "variables undeclared without variables", mutate: validate("variables.x == 1"), want: []string{
			`spec.validations[0].expression: Invalid value: "variables.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'`}},
		{name: "match conditions cannot use variables", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionv1.Variable{{Name: "v", Expression: "1"}}
			p.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "m", Expression: "variables.v == 1"}}
		}, want: []string{
			`spec.matchConditions[0].expression: Invalid value: "variables.v == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'`}},
		{name: "unchanged match conditions are not checked", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "m", Expression: "nope"}}
			p.Spec.Validations[0].Message = "edited"
		}, old: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "m", Expression: "nope"}}
		}},
		{name: "later variable", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionv1.Variable{{Name: "a", Expression: "variables.b"}, {Name: "b", Expression: "1"}}
		}, want: []string{
			`spec.variables[0].expression: Invalid value: "variables.b": compilation failed: ERROR: <input>:1:10: undefined field 'b'`}},
		{name: "annotation type", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.AuditAnnotations = []admissionv1.AuditAnnotation{{Key: "a", ValueExpression: "object.metadata.name"}}
		}, want: []string{
			`spec.auditAnnotations[0].valueExpression: Invalid value: "object.metadata.name": must evaluate to one of [string null_type] but got dyn`}},
		{name: "list library", mutate: validate("[1, 2].distinct().size() == 2")},
		{name: "errors in field order", mutate: validate("object.spec ==", " ", "1"), want: []string{
			`spec.validations[0].expression: Invalid value: "object.spec ==": compilation failed`,
			`spec.validations[1].expression: Required value: expression is not specified`,
			`spec.validations[2].expression: Invalid value: "1": must evaluate to bool but got int`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validVAP()
			tc.mutate(p)
			defaults.Apply(p)
			errs := Create(p)
			if tc.old != nil {
				old := validVAP()
				old.ResourceVersion = "1"
				tc.old(old)
				defaults.Apply(old)
				p.ResourceVersion = "1"
				errs = Update(p, old)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("errors %v, want %q", errs, tc.want)
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Fatalf("got  %q\nwant %q", e.Error(), tc.want[i])
				}
			}
		})
	}
}
