// Package ownerreferences is the OwnerReferencesPermissionEnforcement
// admission plugin: only a user who may delete an object may change its
// ownerReferences, and only a user who may set finalizers on an owner may
// make it wait for its dependents (blockOwnerDeletion).
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name (plugin/pkg/admission/gc) is a
// validating plugin that acts on CREATE and UPDATE of every resource and
// subresource but pods/status (the pod status strategy keeps
// ownerReferences, and old kubelets wrote odd ones there). When the
// ownerReferences change (on create: when there are any):
//
//   - on UPDATE the user must be allowed "delete" on the object itself
//     (same group, version, resource, subresource, namespace and name);
//     otherwise: "cannot set an ownerRef on a resource you can't delete:
//     <reason>, <error>";
//   - for every reference that newly has blockOwnerDeletion: true (added,
//     or turned from unset/false, matched by UID), the user must be
//     allowed "update" on <owner resource>/finalizers of the owner's name,
//     in the object's namespace when the owner's resource is namespaced,
//     for every resource the owner's kind maps to; otherwise: "cannot set
//     blockOwnerDeletion if an ownerReference refers to a resource you
//     can't set finalizers on: <reason>, <error>". A kind that maps to no
//     resource is refused with "cannot set blockOwnerDeletion in this
//     case because cannot find RESTMapping for APIVersion %s Kind %s: %v".
//     One "update" on */finalizers of every group and name allowed first
//     spares all of these (and the lookups).
//
// All refusals are Forbidden on the object. The reason and error of the
// authorizer are printed as kube-apiserver prints them, "<nil>" included.
//
// # Wiring
//
// New takes the authorizer and an OwnerResources function, the part of a
// RESTMapper the plugin needs: the lead maps an owner's group, version and
// kind to the served resources through the registry.
package ownerreferences
