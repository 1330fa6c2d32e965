package defaultstorageclass

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func class(name string, age time.Duration, annotations map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: annotations, CreationTimestamp: metav1.NewTime(t0.Add(-age))}}
}

var (
	def     = map[string]string{IsDefaultAnnotation: "true"}
	betaDef = map[string]string{BetaIsDefaultAnnotation: "true"}
)

func TestAdmit(t *testing.T) {
	pvcRes := schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		pvc         *corev1.PersistentVolumeClaim
		classes     []*storagev1.StorageClass
		listErr     error
		want        *string
		wantErr     string
	}{
		{name: "no default class", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("slow", 0, nil), class("fast", 0, map[string]string{IsDefaultAnnotation: "false"})}},
		{name: "one default", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("slow", 0, nil), class("fast", time.Hour, def)}, want: ptr.To("fast")},
		{name: "beta annotation marks a default", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("old", time.Hour, betaDef)}, want: ptr.To("old")},
		{name: "newest default wins", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("a", 2*time.Hour, def), class("b", time.Minute, betaDef), class("c", time.Hour, def)}, want: ptr.To("b")},
		{name: "same age: smallest name", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("zeta", time.Minute, def), class("alpha", time.Minute, def), class("beta", time.Hour, def)}, want: ptr.To("alpha")},
		{name: "explicit class kept", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("slow")}},
			classes: []*storagev1.StorageClass{class("fast", 0, def)}, want: ptr.To("slow")},
		{name: "empty class kept", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("")}},
			classes: []*storagev1.StorageClass{class("fast", 0, def)}, want: ptr.To("")},
		{name: "beta claim annotation counts as a class, even empty", op: admission.Create,
			pvc:     &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{BetaClassAnnotation: ""}}},
			classes: []*storagev1.StorageClass{class("fast", 0, def)}},
		{name: "update untouched", op: admission.Update, pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("fast", 0, def)}},
		{name: "status untouched", op: admission.Create, subresource: "status", pvc: &corev1.PersistentVolumeClaim{},
			classes: []*storagev1.StorageClass{class("fast", 0, def)}},
		{name: "list error is forbidden", op: admission.Create, pvc: &corev1.PersistentVolumeClaim{}, listErr: errors.New("store down"),
			wantErr: `persistentvolumeclaims "claim" is forbidden: store down`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(func(context.Context) ([]*storagev1.StorageClass, error) { return tt.classes, tt.listErr })
			a := &admission.Attributes{Resource: pvcRes, Subresource: tt.subresource, Operation: tt.op, Name: "claim", Namespace: "ns", Object: tt.pvc}
			err := p.Admit(context.Background(), a)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err) {
					t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Admit: %v", err)
			}
			if diff := cmp.Diff(tt.want, tt.pvc.Spec.StorageClassName); diff != "" {
				t.Errorf("storageClassName (-want +got):\n%s", diff)
			}
		})
	}
}
