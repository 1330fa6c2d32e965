package defaultingressclass

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func class(name string, age time.Duration, isDefault string) *networkingv1.IngressClass {
	c := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-age))}}
	if isDefault != "" {
		c.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: isDefault}
	}
	return c
}

func TestAdmit(t *testing.T) {
	ingRes := schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}
	tests := []struct {
		name        string
		op          admission.Operation
		resource    schema.GroupVersionResource
		subresource string
		obj         runtime.Object
		classes     []*networkingv1.IngressClass
		listErr     error
		want        *string
		wantErr     string
		wantCode    int32
	}{
		{name: "no default", op: admission.Create, obj: &networkingv1.Ingress{},
			classes: []*networkingv1.IngressClass{class("nginx", 0, ""), class("haproxy", 0, "false")}},
		{name: "one default", op: admission.Create, obj: &networkingv1.Ingress{},
			classes: []*networkingv1.IngressClass{class("nginx", 0, ""), class("haproxy", time.Hour, "true")}, want: ptr.To("haproxy")},
		{name: "several defaults: newest", op: admission.Create, obj: &networkingv1.Ingress{},
			classes: []*networkingv1.IngressClass{class("a", time.Hour, "true"), class("b", time.Minute, "true"), class("c", 2*time.Hour, "true")}, want: ptr.To("b")},
		{name: "several defaults of one age: smallest name", op: admission.Create, obj: &networkingv1.Ingress{},
			classes: []*networkingv1.IngressClass{class("z", time.Minute, "true"), class("m", time.Minute, "true")}, want: ptr.To("m")},
		{name: "class named", op: admission.Create, obj: &networkingv1.Ingress{Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("nginx")}},
			classes: []*networkingv1.IngressClass{class("haproxy", 0, "true")}, want: ptr.To("nginx")},
		{name: "legacy annotation", op: admission.Create,
			obj:     &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubernetes.io/ingress.class": "nginx"}}},
			classes: []*networkingv1.IngressClass{class("haproxy", 0, "true")}},
		{name: "update untouched", op: admission.Update, obj: &networkingv1.Ingress{},
			classes: []*networkingv1.IngressClass{class("haproxy", 0, "true")}},
		{name: "status untouched", op: admission.Create, subresource: "status", obj: &networkingv1.Ingress{},
			classes: []*networkingv1.IngressClass{class("haproxy", 0, "true")}},
		{name: "list error", op: admission.Create, obj: &networkingv1.Ingress{}, listErr: errors.New("store down"),
			wantErr: `ingresses.networking.k8s.io "web" is forbidden: store down`, wantCode: 403},
		{name: "not an ingress", op: admission.Create, obj: &corev1.ConfigMap{},
			wantErr: `Internal error occurred: Expected Ingress resource, got: networking.k8s.io/v1, Kind=Ingress`, wantCode: 500},
		{name: "ingresses of another group untouched", op: admission.Create, resource: schema.GroupVersionResource{Group: "extensions", Version: "v1beta1", Resource: "ingresses"},
			obj: &networkingv1.Ingress{}, classes: []*networkingv1.IngressClass{class("haproxy", 0, "true")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(func(context.Context) ([]*networkingv1.IngressClass, error) { return tt.classes, tt.listErr })
			res := ingRes
			if tt.resource.Resource != "" {
				res = tt.resource
			}
			a := &admission.Attributes{Kind: networkingv1.SchemeGroupVersion.WithKind("Ingress"), Resource: res, Subresource: tt.subresource,
				Operation: tt.op, Name: "web", Namespace: "ns", Object: tt.obj}
			err := p.Admit(context.Background(), a)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != tt.wantCode {
					t.Errorf("error %#v is not a status with code %d", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("Admit: %v", err)
			}
			if diff := cmp.Diff(tt.want, tt.obj.(*networkingv1.Ingress).Spec.IngressClassName); diff != "" {
				t.Errorf("ingressClassName (-want +got):\n%s", diff)
			}
		})
	}
}
