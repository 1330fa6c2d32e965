// Package pvcresize is the PersistentVolumeClaimResize admission plugin: a
// claim may grow only when it is bound and its StorageClass allows volume
// expansion.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin that acts
// on UPDATE of persistentvolumeclaims (no subresource; the status
// subresource is not checked) only, and only when spec.resources.requests
// storage grows (shrinking and unchanged sizes pass; the strategy decides
// those). Then:
//
//   - a claim that was not Bound is refused: "Only bound persistent volume
//     claims can be expanded";
//   - a claim whose class (the volume.beta.kubernetes.io/storage-class
//     annotation first, then spec.storageClassName) is empty or changes, or
//     whose StorageClass cannot be read, or does not set
//     allowVolumeExpansion: true, is refused: "only dynamically provisioned
//     pvc can be resized and the storageclass that provisions the pvc must
//     support resize".
//
// Both are Forbidden errors on the claim.
package pvcresize
