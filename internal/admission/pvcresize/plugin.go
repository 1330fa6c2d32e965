package pvcresize

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PersistentVolumeClaimResize"

// betaClassAnnotation names a claim's class before spec.storageClassName
// existed; kube-apiserver still prefers it.
const betaClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// StorageClasses reads one StorageClass; a missing one is an apierrors
// NotFound (any error refuses the resize).
type StorageClasses func(ctx context.Context, name string) (*storagev1.StorageClass, error)

// The reasons a resize is refused, in kube-apiserver's words.
var (
	ErrNotBound      = errors.New("Only bound persistent volume claims can be expanded")
	ErrNotExpandable = errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize")
)

// Plugin is PersistentVolumeClaimResize.
type Plugin struct {
	get StorageClasses
}

// New returns the plugin reading classes through get.
func New(get StorageClasses) *Plugin { return &Plugin{get: get} }

var pvcs = schema.GroupResource{Resource: "persistentvolumeclaims"}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || a.Subresource != "" || a.Resource.GroupResource() != pvcs {
		return nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	old, ok := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) <= 0 {
		return nil
	}
	if old.Status.Phase != corev1.ClaimBound {
		return admission.NewForbidden(a, ErrNotBound)
	}
	if !p.expandable(ctx, pvc, old) {
		return admission.NewForbidden(a, ErrNotExpandable)
	}
	return nil
}

// expandable reports whether the claim's class is unchanged, set, and
// allows expansion.
func (p *Plugin) expandable(ctx context.Context, pvc, old *corev1.PersistentVolumeClaim) bool {
	name, oldName := className(pvc), className(old)
	if name == "" || name != oldName {
		return false
	}
	sc, err := p.get(ctx, name)
	if err != nil {
		return false
	}
	return sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
}

func className(pvc *corev1.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations[betaClassAnnotation]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}
