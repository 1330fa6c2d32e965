package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// errorStrings renders errors as the API shows them in a Status: the field
// path, the kind of error, the value and the detail.
func errorStrings(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func expectErrors(t *testing.T, got field.ErrorList, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if diff := cmp.Diff(want, errorStrings(got)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func om(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

func omNS(name, ns string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }

func ptr[T any](v T) *T { return &v }
