package definition

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StorageVersion returns the name of the first version marked as storage,
// or "" when there is none (which validation refuses).
func StorageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// HasServedVersion reports whether version is one of crd's versions and
// is served.
func HasServedVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Served
		}
	}
	return false
}

// IsStoredVersion reports whether status.storedVersions lists version.
func IsStoredVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Status.StoredVersions {
		if v == version {
			return true
		}
	}
	return false
}

// IsEstablished reports whether crd's Established condition is True: its
// custom resources are served under the accepted names.
func IsEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return IsConditionTrue(crd, apiextensionsv1.Established)
}

// IsConditionTrue reports whether crd has the condition typ with status
// True.
func IsConditionTrue(crd *apiextensionsv1.CustomResourceDefinition, typ apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	c := FindCondition(crd, typ)
	return c != nil && c.Status == apiextensionsv1.ConditionTrue
}

// FindCondition returns crd's condition typ, or nil; the pointer is into
// crd's status.
func FindCondition(crd *apiextensionsv1.CustomResourceDefinition, typ apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == typ {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// SetCondition puts c into crd's conditions, replacing the one of the
// same type. The transition time becomes now when the status changes (or
// had none); a new condition is appended at the end.
func SetCondition(crd *apiextensionsv1.CustomResourceDefinition, c apiextensionsv1.CustomResourceDefinitionCondition, now time.Time) {
	c.LastTransitionTime = metav1.NewTime(now)
	old := FindCondition(crd, c.Type)
	if old == nil {
		crd.Status.Conditions = append(crd.Status.Conditions, c)
		return
	}
	if old.Status != c.Status || old.LastTransitionTime.IsZero() {
		old.LastTransitionTime = c.LastTransitionTime
	}
	old.Status, old.Reason, old.Message = c.Status, c.Reason, c.Message
}

// sameCondition compares what a condition says, not when it said it.
func sameCondition(a, b *apiextensionsv1.CustomResourceDefinitionCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}
