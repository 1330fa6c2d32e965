package defaultstorageclass

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "DefaultStorageClass"

// The annotations that make a StorageClass a default, and the legacy
// annotation by which a claim names its class.
const (
	IsDefaultAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaIsDefaultAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	BetaClassAnnotation     = "volume.beta.kubernetes.io/storage-class"
)

// StorageClasses lists every StorageClass.
type StorageClasses func(ctx context.Context) ([]*storagev1.StorageClass, error)

// Plugin is DefaultStorageClass.
type Plugin struct {
	list StorageClasses
}

// New returns the plugin reading classes through list.
func New(list StorageClasses) *Plugin { return &Plugin{list: list} }

var pvcs = schema.GroupResource{Resource: "persistentvolumeclaims"}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.GroupResource() != pvcs {
		return nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	if _, ok := pvc.Annotations[BetaClassAnnotation]; ok || pvc.Spec.StorageClassName != nil {
		return nil
	}
	classes, err := p.list(ctx)
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if def := Default(classes); def != nil {
		name := def.Name
		pvc.Spec.StorageClassName = &name
	}
	return nil
}

// Default is the default class among classes: the newest of those marked
// default, by name on a tie (so that two defaults created in the same
// second still give one answer), or nil when none is marked.
func Default(classes []*storagev1.StorageClass) *storagev1.StorageClass {
	return admission.NewestDefault(classes, func(c *storagev1.StorageClass) bool {
		return c.Annotations[IsDefaultAnnotation] == "true" || c.Annotations[BetaIsDefaultAnnotation] == "true"
	})
}
