package policy

import (
	"testing"

	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// TestAnnotate covers the results an audit annotation can have, including
// one only a non-conforming expression could produce.
func TestAnnotate(t *testing.T) {
	fail := &compiledPolicy{Policy: policyset.Policy{FailurePolicy: admissionregistrationv1.Fail}}
	ignore := &compiledPolicy{Policy: policyset.Policy{FailurePolicy: admissionregistrationv1.Ignore}}
	a := &auditAnnotation{key: "k", value: &celenv.Expression{Source: "x"}}
	evalErr := &apiservercel.Error{Detail: "boom"}
	tests := []struct {
		name string
		p    *compiledPolicy
		r    celenv.Result
		want annotationResult
	}{
		{"string", fail, celenv.Result{Val: types.String(" v ")}, annotationResult{key: "k", value: "v", action: annotationPublish}},
		{"empty", fail, celenv.Result{Val: types.String("")}, annotationResult{key: "k", action: annotationExclude}},
		{"null", fail, celenv.Result{Val: types.NullValue}, annotationResult{key: "k", action: annotationExclude}},
		{"int", ignore, celenv.Result{Val: types.Int(1)}, annotationResult{key: "k", action: annotationError,
			err: "valueExpression 'x' resulted in unsupported return type: int. Return type must be either string or null."}},
		{"error", fail, celenv.Result{Err: evalErr}, annotationResult{key: "k", action: annotationError, err: "boom"}},
		{"error ignored", ignore, celenv.Result{Err: evalErr}, annotationResult{key: "k", action: annotationExclude, err: "boom"}},
		{"nothing", fail, celenv.Result{}, annotationResult{key: "k"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.annotate(a, &tc.r); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
