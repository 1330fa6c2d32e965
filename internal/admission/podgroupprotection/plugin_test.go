package podgroupprotection

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestAdmit(t *testing.T) {
	const protection = "scheduling.k8s.io/podgroup-protection"
	res := schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "podgroups"}
	om := func(f ...string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "pg", Namespace: "ns", Finalizers: f}
	}
	tests := []struct {
		name        string
		disabled    bool
		op          admission.Operation
		resource    schema.GroupVersionResource
		subresource string
		obj         runtime.Object
		want        []string
	}{
		{name: "v1beta1 create", op: admission.Create, obj: &schedulingv1beta1.PodGroup{ObjectMeta: om()}, want: []string{protection}},
		{name: "v1alpha3 create", op: admission.Create, resource: schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1alpha3", Resource: "podgroups"},
			obj: &schedulingv1alpha3.PodGroup{ObjectMeta: om("a/b")}, want: []string{"a/b", protection}},
		{name: "already protected", op: admission.Create, obj: &schedulingv1beta1.PodGroup{ObjectMeta: om(protection)}, want: []string{protection}},
		{name: "gate off (the default)", disabled: true, op: admission.Create, obj: &schedulingv1beta1.PodGroup{ObjectMeta: om()}},
		{name: "update untouched", op: admission.Update, obj: &schedulingv1beta1.PodGroup{ObjectMeta: om()}},
		{name: "status untouched", op: admission.Create, subresource: "status", obj: &schedulingv1beta1.PodGroup{ObjectMeta: om()}},
		{name: "other type untouched", op: admission.Create, obj: &corev1.ConfigMap{ObjectMeta: om()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := res
			if tt.resource.Resource != "" {
				r = tt.resource
			}
			a := &admission.Attributes{Resource: r, Subresource: tt.subresource, Operation: tt.op, Name: "pg", Namespace: "ns", Object: tt.obj}
			if err := New(!tt.disabled).Admit(context.Background(), a); err != nil {
				t.Fatalf("Admit: %v", err)
			}
			m, err := meta.Accessor(a.Object)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, m.GetFinalizers()); diff != "" {
				t.Errorf("finalizers (-want +got):\n%s", diff)
			}
		})
	}
}
