// Package defaultstorageclass is the DefaultStorageClass admission plugin:
// a PersistentVolumeClaim created without a storage class gets the
// cluster's default StorageClass.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a mutating plugin that acts
// on CREATE of persistentvolumeclaims (no subresource) only:
//
//   - a claim that names a class, through spec.storageClassName (even "")
//     or the volume.beta.kubernetes.io/storage-class annotation (any value),
//     is left alone;
//   - otherwise the default classes are those annotated
//     storageclass.kubernetes.io/is-default-class or the beta
//     storageclass.beta.kubernetes.io/is-default-class with "true"; the
//     newest by creationTimestamp wins, ties going to the smallest name;
//     with no default class the claim stays without one;
//   - a failure to list the classes refuses the request as Forbidden.
//
// Claims created while there was no default are given one later by the
// persistent volume controller (retroactive default StorageClass
// assignment), not by this plugin.
package defaultstorageclass
