package alwaysdeny

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestDeniesEverything(t *testing.T) {
	tests := []struct {
		name string
		a    *admission.Attributes
		want string
	}{
		{
			name: "create with a name",
			a: &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
				Namespace: "default", Operation: admission.Create, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}},
			want: `pods "p" is forbidden: admission control is denying all modifications`,
		},
		{
			name: "delete of a cluster-scoped object in a group",
			a: &admission.Attributes{Resource: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
				Name: "admin", Operation: admission.Delete},
			want: `clusterroles.rbac.authorization.k8s.io "admin" is forbidden: admission control is denying all modifications`,
		},
		{
			name: "connect",
			a: &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: "exec",
				Namespace: "default", Name: "p", Operation: admission.Connect},
			want: `pods "p" is forbidden: admission control is denying all modifications`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for phase, err := range map[string]error{
				"admit":    New().Admit(context.Background(), tt.a),
				"validate": New().Validate(context.Background(), tt.a),
			} {
				if !apierrors.IsForbidden(err) {
					t.Fatalf("%s: got %v, want a Forbidden error", phase, err)
				}
				if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
					t.Errorf("%s: message (-want +got):\n%s", phase, diff)
				}
			}
		})
	}
}
