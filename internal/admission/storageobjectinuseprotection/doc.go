// Package storageobjectinuseprotection is the StorageObjectInUseProtection
// admission plugin: every PersistentVolumeClaim, PersistentVolume and
// VolumeAttributesClass is created with its protection finalizer, so that
// it cannot disappear while something still uses it.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a mutating plugin that acts
// on CREATE of the main resource (no subresource) only:
//
//   - persistentvolumeclaims get kubernetes.io/pvc-protection,
//   - persistentvolumes get kubernetes.io/pv-protection,
//   - storage.k8s.io volumeattributesclasses get kubernetes.io/vac-protection
//     (behind VolumeAttributesClass, GA and locked on since 1.36, so always).
//
// The finalizer is appended after any the client set, and not added twice.
// The controllers that remove the finalizers once the object is no longer
// in use (pvc-protection, pv-protection, vac-protection in
// kube-controller-manager) are not part of this package.
package storageobjectinuseprotection
