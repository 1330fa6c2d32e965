package storageobjectinuseprotection

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "StorageObjectInUseProtection"

// The finalizers the protection controllers remove once an object is unused.
const (
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	PVProtectionFinalizer  = "kubernetes.io/pv-protection"
	VACProtectionFinalizer = "kubernetes.io/vac-protection"
)

// Plugin is StorageObjectInUseProtection.
type Plugin struct{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

var (
	pvcs = schema.GroupResource{Resource: "persistentvolumeclaims"}
	pvs  = schema.GroupResource{Resource: "persistentvolumes"}
	vacs = schema.GroupResource{Group: storagev1.GroupName, Resource: "volumeattributesclasses"}
)

// Admit implements admission.Mutator.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "" {
		return nil
	}
	switch a.Resource.GroupResource() {
	case pvcs:
		if _, ok := a.Object.(*corev1.PersistentVolumeClaim); ok {
			addFinalizer(a.Object, PVCProtectionFinalizer)
		}
	case pvs:
		if _, ok := a.Object.(*corev1.PersistentVolume); ok {
			addFinalizer(a.Object, PVProtectionFinalizer)
		}
	case vacs:
		// kube-apiserver sees every served version as its internal type;
		// here each version has its own.
		switch a.Object.(type) {
		case *storagev1.VolumeAttributesClass, *storagev1beta1.VolumeAttributesClass, *storagev1alpha1.VolumeAttributesClass:
			addFinalizer(a.Object, VACProtectionFinalizer)
		}
	}
	return nil
}

func addFinalizer(obj runtime.Object, finalizer string) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if f := m.GetFinalizers(); !slices.Contains(f, finalizer) {
		m.SetFinalizers(append(f, finalizer))
	}
}
