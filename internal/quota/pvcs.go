package quota

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var pvcCountName = ObjectCountName(schema.GroupResource{Resource: "persistentvolumeclaims"})

var pvcResources = []corev1.ResourceName{corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage}

// StorageClassSuffix joins a storage class and a claim resource in a
// quota name: <class>.storageclass.storage.k8s.io/requests.storage.
const StorageClassSuffix = ".storageclass.storage.k8s.io/"

// NewPersistentVolumeClaims is the evaluator of claims. Scopes follow
// VolumeAttributesClass, GA and locked on in kube-apiserver 1.37, as is
// RecoverVolumeExpansionFailure (allocated storage counts when larger).
func NewPersistentVolumeClaims() *Evaluator {
	return &Evaluator{
		GroupResource: schema.GroupResource{Resource: "persistentvolumeclaims"},
		handles:       pvcHandles,
		matching:      pvcMatching,
		scope:         pvcScope,
		usage:         pvcUsage,
	}
}

func toClaim(obj runtime.Object) (*corev1.PersistentVolumeClaim, error) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil, fmt.Errorf("expect *v1.PersistentVolumeClaim, got %T", obj)
	}
	return pvc, nil
}

// pvcHandles: every create and update, and every status update, because
// kube-apiserver compares the allocated storage of old and new status by
// pointer, which always differs.
func pvcHandles(a *admission.Attributes) bool {
	switch a.Subresource {
	case "":
		return a.Operation == admission.Create || a.Operation == admission.Update
	case "status":
		_, err1 := toClaim(a.Object)
		_, err2 := toClaim(a.OldObject)
		return err1 == nil && err2 == nil
	}
	return false
}

func pvcMatching(in []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range in {
		switch {
		case n == pvcCountName, n == corev1.ResourcePersistentVolumeClaims, n == corev1.ResourceRequestsStorage:
			out = append(out, n)
		default:
			for _, r := range pvcResources {
				if strings.HasSuffix(string(n), StorageClassSuffix+string(r)) {
					out = append(out, n)
					break
				}
			}
		}
	}
	return out
}

// volumeAttributesClasses are every class a claim refers to: wanted,
// current and being moved to.
func volumeAttributesClasses(pvc *corev1.PersistentVolumeClaim) []string {
	var out []string
	add := func(s string) {
		if s == "" {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	if pvc.Spec.VolumeAttributesClassName != nil {
		add(*pvc.Spec.VolumeAttributesClassName)
	}
	if pvc.Status.CurrentVolumeAttributesClassName != nil {
		add(*pvc.Status.CurrentVolumeAttributesClassName)
	}
	if s := pvc.Status.ModifyVolumeStatus; s != nil {
		add(s.TargetVolumeAttributesClassName)
	}
	return out
}

func pvcScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	pvc, err := toClaim(obj)
	if err != nil {
		return false, err
	}
	if sel.ScopeName != corev1.ResourceQuotaScopeVolumeAttributesClass {
		return false, nil
	}
	classes := volumeAttributesClasses(pvc)
	if sel.Operator == corev1.ScopeSelectorOpExists {
		return len(classes) != 0, nil
	}
	return selectorMatches(sel, classes...)
}

// storageClass is the claim's class: the beta annotation first.
func storageClass(pvc *corev1.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

func pvcUsage(obj runtime.Object) (corev1.ResourceList, error) {
	pvc, err := toClaim(obj)
	if err != nil {
		return corev1.ResourceList{}, err
	}
	one := *resource.NewQuantity(1, resource.DecimalSI)
	out := corev1.ResourceList{corev1.ResourcePersistentVolumeClaims: one, pvcCountName: one}
	class := storageClass(pvc)
	if class != "" {
		out[corev1.ResourceName(class+StorageClassSuffix+string(corev1.ResourcePersistentVolumeClaims))] = one
	}
	if storage := claimStorage(pvc); storage != nil {
		out[corev1.ResourceRequestsStorage] = *storage
		if class != "" {
			out[corev1.ResourceName(class+StorageClassSuffix+string(corev1.ResourceRequestsStorage))] = *storage
		}
	}
	return out, nil
}

// claimStorage is the requested storage rounded up to whole bytes, or
// the allocated storage when that is larger (an expansion in progress).
func claimStorage(pvc *corev1.PersistentVolumeClaim) *resource.Quantity {
	roundUp := func(q resource.Quantity) *resource.Quantity {
		r := q.DeepCopy()
		if !r.RoundUp(0) {
			return &r
		}
		return &q
	}
	req, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil
	}
	out := roundUp(req)
	if alloc, ok := pvc.Status.AllocatedResources[corev1.ResourceStorage]; ok && alloc.Cmp(*out) > 0 {
		out = roundUp(alloc)
	}
	return out
}
