package validation

import (
	"fmt"
	"reflect"

	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The name rules kube-apiserver applies per resource.
var (
	nameIsDNSSubdomain = genericvalidation.NameIsDNSSubdomain
	nameIsDNSLabel     = genericvalidation.NameIsDNSLabel
	nameIsDNS1035Label = genericvalidation.NameIsDNS1035Label
	// RBAC objects and a few others only need to be usable as one URL path
	// segment; so does every object in kube-apiserver's generic checks.
	nameIsPathSegment = path.ValidatePathSegmentName
)

var metadataPath = field.NewPath("metadata")

// validateMeta checks metadata on create: the name rule, whether a namespace
// is required or forbidden, labels, annotations, owner references,
// finalizers and managed fields.
func validateMeta(m *metav1.ObjectMeta, namespaced bool, nameFn genericvalidation.ValidateNameFunc) field.ErrorList {
	return genericvalidation.ValidateObjectMetaAccessor(m, namespaced, nameFn, metadataPath)
}

// validateMetaUpdate checks the metadata rules of every update: immutable
// name, namespace, uid and creationTimestamp, a resourceVersion, and no new
// finalizers while deleting.
func validateMetaUpdate(m, old metav1.Object) field.ErrorList {
	return genericvalidation.ValidateObjectMetaAccessorUpdate(m, old, metadataPath)
}

// immutable reports newVal as "field is immutable" when it differs from oldVal.
func immutable(newVal, oldVal any, p *field.Path) field.ErrorList {
	return genericvalidation.ValidateImmutableField(newVal, oldVal, p)
}

func nonNegative(v int64, p *field.Path) field.ErrorList {
	return genericvalidation.ValidateNonnegativeField(v, p)
}

// isNil reports a nil interface or a typed nil pointer, so that validators
// never dereference one.
func isNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func internalError(err error, obj any) field.ErrorList {
	return field.ErrorList{field.InternalError(field.NewPath(""), fmt.Errorf("%w: %T", err, obj))}
}
