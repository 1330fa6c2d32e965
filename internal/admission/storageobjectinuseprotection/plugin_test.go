package storageobjectinuseprotection

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestAdmit(t *testing.T) {
	pvcRes := schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	pvRes := schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}
	vacRes := schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses"}
	om := func(finalizers ...string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "x", Finalizers: finalizers}
	}
	tests := []struct {
		name        string
		resource    schema.GroupVersionResource
		subresource string
		op          admission.Operation
		obj         runtime.Object
		want        []string
	}{
		{name: "pvc create", resource: pvcRes, op: admission.Create,
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: om()}, want: []string{PVCProtectionFinalizer}},
		{name: "pvc create keeps others first", resource: pvcRes, op: admission.Create,
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: om("a/b")}, want: []string{"a/b", PVCProtectionFinalizer}},
		{name: "pvc already protected", resource: pvcRes, op: admission.Create,
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: om(PVCProtectionFinalizer, "a/b")}, want: []string{PVCProtectionFinalizer, "a/b"}},
		{name: "pvc update untouched", resource: pvcRes, op: admission.Update,
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: om()}, want: nil},
		{name: "pvc status create untouched", resource: pvcRes, subresource: "status", op: admission.Create,
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: om()}, want: nil},
		{name: "pv create", resource: pvRes, op: admission.Create,
			obj: &corev1.PersistentVolume{ObjectMeta: om()}, want: []string{PVProtectionFinalizer}},
		{name: "pv gets no pvc finalizer", resource: pvRes, op: admission.Create,
			obj: &corev1.PersistentVolume{ObjectMeta: om(PVCProtectionFinalizer)}, want: []string{PVCProtectionFinalizer, PVProtectionFinalizer}},
		{name: "vac v1 create", resource: vacRes, op: admission.Create,
			obj: &storagev1.VolumeAttributesClass{ObjectMeta: om()}, want: []string{VACProtectionFinalizer}},
		{name: "vac v1beta1 create", resource: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1beta1", Resource: "volumeattributesclasses"}, op: admission.Create,
			obj: &storagev1beta1.VolumeAttributesClass{ObjectMeta: om()}, want: []string{VACProtectionFinalizer}},
		{name: "other resource untouched", resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, op: admission.Create,
			obj: &corev1.ConfigMap{ObjectMeta: om()}, want: nil},
		{name: "vac in core group untouched", resource: schema.GroupVersionResource{Version: "v1", Resource: "volumeattributesclasses"}, op: admission.Create,
			obj: &storagev1.VolumeAttributesClass{ObjectMeta: om()}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: tt.resource, Subresource: tt.subresource, Operation: tt.op, Name: "x", Object: tt.obj}
			if err := New().Admit(context.Background(), a); err != nil {
				t.Fatalf("Admit: %v", err)
			}
			if diff := cmp.Diff(tt.want, finalizers(t, a.Object)); diff != "" {
				t.Errorf("finalizers (-want +got):\n%s", diff)
			}
		})
	}
}

func finalizers(t *testing.T, obj runtime.Object) []string {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m.GetFinalizers()
}
