package admission

import (
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
)

// NewForbidden is the error of a plugin that refuses a request, shaped as
// kube-apiserver's: 403 on the resource and the object's name (its
// generateName before a name is generated, "Unknown" without either). A
// Forbidden error passes through unchanged.
func NewForbidden(a *Attributes, err error) error {
	if apierrors.IsForbidden(err) {
		return err
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), ObjectName(a), err)
}

// ObjectName is the name kube-apiserver's admission errors show: the
// request's, else the new object's name or generateName, else "Unknown".
func ObjectName(a *Attributes) string {
	if a.Name != "" {
		return a.Name
	}
	if v := reflect.ValueOf(a.Object); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return "Unknown"
	}
	m, err := meta.Accessor(a.Object)
	switch {
	case err != nil:
		// An object without metadata; a slash never appears in a name.
		return "Unknown/errorGettingName"
	case m.GetName() != "":
		return m.GetName()
	case m.GetGenerateName() != "":
		return m.GetGenerateName()
	}
	return "Unknown"
}
