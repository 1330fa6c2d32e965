package definition

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// PrepareForCreate sets what the server owns on a new definition: its
// status starts empty (no accepted names, no conditions) but for
// status.storedVersions, which holds the storage version.
func PrepareForCreate(crd *apiextensionsv1.CustomResourceDefinition) {
	if crd == nil {
		return
	}
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	addStorageVersion(crd)
}

// PrepareForUpdate sets what the server owns on a definition replacing old
// through the main resource: the status stays old's, and a storage version
// that is new is added to status.storedVersions (a version once stored is
// only removed from there through /status, by a storage migration).
func PrepareForUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) {
	if crd == nil || old == nil {
		return
	}
	crd.Status = *old.Status.DeepCopy()
	addStorageVersion(crd)
}

// addStorageVersion appends the first version marked as storage to
// status.storedVersions unless it is there already. The slice is copied
// first: it may share its array with the stored object's.
func addStorageVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	v := StorageVersion(crd)
	if v == "" || IsStoredVersion(crd, v) {
		return
	}
	crd.Status.StoredVersions = append(slices.Clip(crd.Status.StoredVersions), v)
}
