package pvcresize

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

const (
	notBound      = `persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded`
	notExpandable = `persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`
)

type claim struct {
	size       string
	class      *string
	annotation *string
	phase      corev1.PersistentVolumeClaimPhase
}

func (c claim) build() *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "ns"},
		Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: c.class},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: c.phase},
	}
	if c.size != "" {
		pvc.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(c.size)}
	}
	if c.annotation != nil {
		pvc.Annotations = map[string]string{betaClassAnnotation: *c.annotation}
	}
	return pvc
}

func TestValidate(t *testing.T) {
	classes := map[string]*storagev1.StorageClass{
		"expandable": {ObjectMeta: metav1.ObjectMeta{Name: "expandable"}, AllowVolumeExpansion: ptr.To(true)},
		"fixed":      {ObjectMeta: metav1.ObjectMeta{Name: "fixed"}, AllowVolumeExpansion: ptr.To(false)},
		"unset":      {ObjectMeta: metav1.ObjectMeta{Name: "unset"}},
	}
	get := func(_ context.Context, name string) (*storagev1.StorageClass, error) {
		if sc, ok := classes[name]; ok {
			return sc, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}, name)
	}
	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		old, new    claim
		wantErr     string
	}{
		{name: "grow bound expandable", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("expandable"), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("expandable")}},
		{name: "same size on unbound fixed claim", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("fixed"), phase: corev1.ClaimPending},
			new: claim{size: "1024Mi", class: ptr.To("fixed")}},
		{name: "shrink passes admission", op: admission.Update,
			old: claim{size: "2Gi", class: ptr.To("fixed"), phase: corev1.ClaimBound},
			new: claim{size: "1Gi", class: ptr.To("fixed")}},
		{name: "grow pending claim", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("expandable"), phase: corev1.ClaimPending},
			new: claim{size: "2Gi", class: ptr.To("expandable")}, wantErr: notBound},
		{name: "grow from no request", op: admission.Update,
			old: claim{class: ptr.To("expandable"), phase: corev1.ClaimLost},
			new: claim{size: "1Gi", class: ptr.To("expandable")}, wantErr: notBound},
		{name: "class forbids expansion", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("fixed"), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("fixed")}, wantErr: notExpandable},
		{name: "class leaves expansion unset", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("unset"), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("unset")}, wantErr: notExpandable},
		{name: "class missing", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("gone"), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("gone")}, wantErr: notExpandable},
		{name: "no class", op: admission.Update,
			old: claim{size: "1Gi", phase: corev1.ClaimBound},
			new: claim{size: "2Gi"}, wantErr: notExpandable},
		{name: "class changed", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("fixed"), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("expandable")}, wantErr: notExpandable},
		{name: "beta annotation wins over the field", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("fixed"), annotation: ptr.To("expandable"), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("fixed"), annotation: ptr.To("expandable")}},
		{name: "empty beta annotation hides the field", op: admission.Update,
			old: claim{size: "1Gi", class: ptr.To("expandable"), annotation: ptr.To(""), phase: corev1.ClaimBound},
			new: claim{size: "2Gi", class: ptr.To("expandable"), annotation: ptr.To("")}, wantErr: notExpandable},
		{name: "status update not checked", op: admission.Update, subresource: "status",
			old: claim{size: "1Gi", class: ptr.To("fixed"), phase: corev1.ClaimPending},
			new: claim{size: "2Gi", class: ptr.To("fixed")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"},
				Subresource: tt.subresource, Operation: tt.op, Name: "data", Namespace: "ns",
				Object: tt.new.build(), OldObject: tt.old.build()}
			err := New(get).Validate(context.Background(), a)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err)):
				t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
			}
		})
	}
}
