package validation

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/crd/definition"
)

// CustomResourceDefinitions are checked by crd/definition, which runs
// apiextensions' own validation: metadata (the name must be
// <plural>.<group>), spec, status and the API approval annotation. The
// generic metadata checks Update adds on top repeat none of them.

func validateCRD(c *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return definition.ValidateCreate(c)
}

func validateCRDUpdate(c, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return definition.ValidateUpdate(c, old)
}

// StatusUpdate validates obj replacing old through the status
// subresource. kube-apiserver validates a CustomResourceDefinition's
// status writes apart: metadata and accepted names only, not the spec
// (which /status cannot change) nor storedVersions (which a storage
// migration empties there). Every other kind is validated as Update does.
func StatusUpdate(obj, old runtime.Object) field.ErrorList {
	if isNil(obj) || isNil(old) {
		return internalError(ErrNilObject, obj)
	}
	if reflect.TypeOf(obj) != reflect.TypeOf(old) {
		return internalError(ErrTypeMismatch, old)
	}
	if errs, ok := hpaStatusUpdate(obj, old); ok {
		return appendNew(errs, genericMetaUpdate(obj, old)...)
	}
	if errs, ok := workloadStatusUpdate(obj, old); ok {
		return appendNew(errs, genericMetaUpdate(obj, old)...)
	}
	if errs, ok := networkingStatusUpdate(obj, old); ok {
		return appendNew(errs, genericMetaUpdate(obj, old)...)
	}
	c, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return Update(obj, old)
	}
	errs := definition.ValidateStatusUpdate(c, old.(*apiextensionsv1.CustomResourceDefinition))
	if len(errs) == 1 && errs[0].Type == field.ErrorTypeInternal {
		return errs
	}
	return appendNew(errs, genericMetaUpdate(obj, old)...)
}

// Warnings returns what kube-apiserver warns about a successful create
// (old nil) or update of obj: unrecognized formats and list-type sets of
// non-scalars in a CustomResourceDefinition's schemas, and a pod's
// suspicious settings.
func Warnings(obj, old runtime.Object) []string {
	if w, ok := networkingWarnings(obj, old); ok {
		return w
	}
	if w, ok := clusterWarnings(obj, old); ok {
		return w
	}
	if sa, ok := obj.(*corev1.ServiceAccount); ok {
		oldSA, _ := old.(*corev1.ServiceAccount)
		return serviceAccountWarnings(sa, oldSA)
	}
	if pod, ok := obj.(*corev1.Pod); ok && old == nil {
		return podWarnings(&pod.Spec, field.NewPath("spec"))
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil
	}
	if o, ok := old.(*apiextensionsv1.CustomResourceDefinition); ok {
		return definition.WarningsOnUpdate(crd, o)
	}
	return definition.WarningsOnCreate(crd)
}
