package namespaceautoprovision

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

var (
	podKind    = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pods       = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	namespaces = schema.GroupResource{Resource: "namespaces"}
)

func TestAdmit(t *testing.T) {
	tests := []struct {
		name        string
		a           *admission.Attributes
		createErr   error
		wantCreated []string
		wantErr     string
	}{
		{
			name: "existing namespace",
			a:    &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "ns", Name: "p", Operation: admission.Create},
		},
		{
			name:        "missing namespace is created",
			a:           &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "new", Name: "p", Operation: admission.Create},
			wantCreated: []string{"new"},
		},
		{
			name:        "created meanwhile",
			a:           &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "new", Name: "p", Operation: admission.Create},
			createErr:   apierrors.NewAlreadyExists(namespaces, "new"),
			wantCreated: []string{"new"},
		},
		{
			name:        "create refused",
			a:           &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "new", Name: "p", Operation: admission.Create},
			createErr:   apierrors.NewInvalid(schema.GroupKind{Kind: "Namespace"}, "new", nil),
			wantCreated: []string{"new"},
			wantErr:     `pods "p" is forbidden: Namespace "new" is invalid`,
		},
		{
			name:        "a Forbidden create is passed through",
			a:           &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "new", Name: "p", Operation: admission.Create},
			createErr:   apierrors.NewForbidden(namespaces, "new", errors.New("quota")),
			wantCreated: []string{"new"},
			wantErr:     `namespaces "new" is forbidden: quota`,
		},
		{
			name:    "read failure",
			a:       &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "broken", Name: "p", Operation: admission.Create},
			wantErr: `pods "p" is forbidden: store unavailable`,
		},
		{name: "dry run", a: &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "new", Operation: admission.Create, DryRun: true}},
		{name: "update", a: &admission.Attributes{Kind: podKind, Resource: pods, Namespace: "new", Operation: admission.Update}},
		{name: "a namespace itself", a: &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Name: "new", Operation: admission.Create}},
		{name: "cluster-scoped", a: &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Name: "n", Operation: admission.Create}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var created []string
			get := func(_ context.Context, name string) (*corev1.Namespace, error) {
				switch name {
				case "ns":
					return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
				case "broken":
					return nil, errors.New("store unavailable")
				}
				return nil, apierrors.NewNotFound(namespaces, name)
			}
			create := func(_ context.Context, ns *corev1.Namespace) error {
				if diff := cmp.Diff(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name}}, ns); diff != "" {
					t.Errorf("created namespace (-want +got):\n%s", diff)
				}
				created = append(created, ns.Name)
				return tt.createErr
			}
			err := New(get, create).Admit(context.Background(), tt.a)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCreated, created); diff != "" {
				t.Errorf("created (-want +got):\n%s", diff)
			}
		})
	}
}
