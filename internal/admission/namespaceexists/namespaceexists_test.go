package namespaceexists

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func namespaces(existing ...string) Namespaces {
	return func(_ context.Context, name string) (*corev1.Namespace, error) {
		if name == "broken" {
			return nil, errors.New("store unavailable")
		}
		for _, n := range existing {
			if n == name {
				return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
}

var (
	podKind = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	nsKind  = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	pods    = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		a    *admission.Attributes
		want *metav1.Status
	}{
		{name: "existing namespace", a: &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "ns", Operation: admission.Create}},
		{name: "cluster-scoped", a: &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Operation: admission.Create}},
		{
			name: "missing namespace",
			a:    &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "gone", Operation: admission.Delete},
			want: &metav1.Status{Status: metav1.StatusFailure, Code: 404, Reason: metav1.StatusReasonNotFound,
				Message: `namespaces "gone" not found`, Details: &metav1.StatusDetails{Name: "gone", Kind: "namespaces"}},
		},
		{name: "a namespace's subresource by kind", a: &admission.Attributes{Kind: nsKind, Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Subresource: "finalize", Name: "gone", Namespace: "gone", Operation: admission.Update}},
		{name: "connect is not checked", a: &admission.Attributes{Kind: podKind, Resource: pods, Subresource: "exec", Namespace: "gone", Operation: admission.Connect}},
		{
			name: "read failure",
			a:    &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "broken", Operation: admission.Update},
			want: &metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError,
				Message: "Internal error occurred: store unavailable", Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: "store unavailable"}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(namespaces("ns")).Validate(context.Background(), tt.a)
			var got *metav1.Status
			if err != nil {
				var se *apierrors.StatusError
				if !errors.As(err, &se) {
					t.Fatalf("got %T %v, want a *StatusError", err, err)
				}
				got = &se.ErrStatus
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
