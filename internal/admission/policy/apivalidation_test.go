package policy

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func TestValidateExpressions(t *testing.T) {
	tests := []struct {
		name string
		p    *admissionregistrationv1.ValidatingAdmissionPolicy
		old  *admissionregistrationv1.ValidatingAdmissionPolicy
		want []string
	}{
		{"clean", vap("p", matchWhen("m", "request.operation == 'CREATE'"), variable("v", "object.spec.containers.size()"),
			validate("variables.v < 3"), withValidation(admissionregistrationv1.Validation{Expression: "true", MessageExpression: "'n=' + string(variables.v)"}),
			annotate("a", "string(variables.v)")), nil, nil},
		{"syntax", vap("p", validate("object.spec ==")), nil, []string{
			`spec.validations[0].expression: Invalid value: "object.spec ==": compilation failed: ERROR: <input>:1:15: Syntax error`}},
		{"type", vap("p", validate("'x'")), nil, []string{`spec.validations[0].expression: Invalid value: "'x'": must evaluate to bool but got string`}},
		{"messageExpression without authorizer", vap("p", withValidation(admissionregistrationv1.Validation{Expression: "true", MessageExpression: "string(authorizer.path('/').check('get').allowed())"})), nil, []string{
			`spec.validations[0].messageExpression: Invalid value: "string(authorizer.path('/').check('get').allowed())": compilation failed: ERROR: <input>:1:8: undeclared reference to 'authorizer'`}},
		{"params without paramKind", vap("p", validate("params.x == 1")), nil, []string{
			`spec.validations[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`}},
		{"params with paramKind", vap("p", paramKind("v1", "ConfigMap"), validate("params.x == 1"), matchWhen("m", "params != null")), nil, nil},
		{"variables undeclared without variables", vap("p", validate("variables.x == 1")), nil, []string{
			`spec.validations[0].expression: Invalid value: "variables.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'`}},
		{"match conditions cannot use variables", vap("p", variable("v", "1"), matchWhen("m", "variables.v == 1"), validate("true")), nil, []string{
			`spec.matchConditions[0].expression: Invalid value: "variables.v == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'`}},
		{"unchanged match conditions are not checked", vap("p", matchWhen("m", "nope"), validate("true")), vap("p", matchWhen("m", "nope")), nil},
		{"variable error", vap("p", variable("v", "object.spec +"), validate("true")), nil, []string{`spec.variables[0].expression: Invalid value: "object.spec +"`}},
		{"later variable", vap("p", variable("a", "variables.b"), variable("b", "1"), validate("true")), nil, []string{
			`spec.variables[0].expression: Invalid value: "variables.b": compilation failed: ERROR: <input>:1:10: undefined field 'b'`}},
		{"annotation type", vap("p", annotate("a", "object.metadata.name")), nil, []string{
			`spec.auditAnnotations[0].valueExpression: Invalid value: "object.metadata.name": must evaluate to one of [string null_type] but got dyn`}},
		{"list library", vap("p", validate("[1, 2].distinct().size() == 2")), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateExpressions(tc.p, tc.old)
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
