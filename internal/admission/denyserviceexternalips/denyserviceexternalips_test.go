package denyserviceexternalips

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var servicesGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}

func svc(ips ...string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: corev1.ServiceSpec{ExternalIPs: ips}}
}

func TestValidate(t *testing.T) {
	const denied = `services "s" is forbidden: Use of external IPs is denied by admission control`
	tests := []struct {
		name string
		a    *admission.Attributes
		want string
	}{
		{name: "create without", a: &admission.Attributes{Resource: servicesGVR, Operation: admission.Create, Object: svc()}},
		{name: "create with", a: &admission.Attributes{Resource: servicesGVR, Operation: admission.Create, Object: svc("1.1.1.1")}, want: denied},
		{name: "update keeps a subset", a: &admission.Attributes{Resource: servicesGVR, Operation: admission.Update, Object: svc("2.2.2.2"), OldObject: svc("1.1.1.1", "2.2.2.2")}},
		{name: "update removes all", a: &admission.Attributes{Resource: servicesGVR, Operation: admission.Update, Object: svc(), OldObject: svc("1.1.1.1")}},
		{name: "update adds one", a: &admission.Attributes{Resource: servicesGVR, Operation: admission.Update, Object: svc("1.1.1.1", "3.3.3.3"), OldObject: svc("1.1.1.1")}, want: denied},
		{name: "status is not checked", a: &admission.Attributes{Resource: servicesGVR, Subresource: "status", Operation: admission.Update, Object: svc("9.9.9.9"), OldObject: svc()}},
		{name: "delete is not checked", a: &admission.Attributes{Resource: servicesGVR, Operation: admission.Delete, OldObject: svc("9.9.9.9")}},
		{
			name: "not a service",
			a: &admission.Attributes{Resource: servicesGVR, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
				Operation: admission.Create, Object: &corev1.Pod{}},
			want: "Internal error occurred: Expected Service resource, got: /v1, Kind=Pod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Validate(context.Background(), tt.a)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
