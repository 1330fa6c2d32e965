// Package noderestriction is the NodeRestriction admission plugin: it
// limits what a kubelet may write to what belongs to its own node, as
// kube-apiserver's plugin of the same name does ("Admission Controllers
// Reference", NodeRestriction; "Using Node Authorization").
//
// # Who it restricts
//
// Only node identities: users named system:node:<nodeName> in the group
// system:nodes. Everyone else passes untouched, including members of
// system:nodes with other names (the migration notes of "Using Node
// Authorization"). A user named system:node: with no node name is refused
// everything the plugin looks at.
//
// # What it checks
//
//   - pods: a node creates only mirror pods (annotation
//     kubernetes.io/config.mirror) bound to itself, owned by its own Node as
//     controller, that reference no other API object (service accounts,
//     secrets, config maps, claims, CSI drivers, projected tokens...);
//     it updates no pod except through pods/status of pods bound to itself,
//     and then neither their labels nor their claim statuses; it deletes and
//     evicts only pods bound to itself (pods.go, podrefs.go);
//   - nodes: a node creates, updates and deletes only its own Node; it may
//     not create it with a configSource, nor change its configSource, taints
//     or ownerReferences, nor set labels under node-restriction.kubernetes.io
//     or unknown kubernetes.io and k8s.io labels (nodes.go, labels.go);
//   - persistentvolumeclaims: only status, and there only capacity,
//     conditions and the resize fields (pvc.go);
//   - serviceaccounts/token: only tokens bound to a pod on the node, and,
//     with the ServiceAccountNodeAudienceRestriction rule (on unless
//     Options.DisableAudienceRestriction), only for an audience the pod
//     names (a projected token volume, or the spec.tokenRequests of a CSI
//     driver serving one of its volumes, inline, through a claim, or as the
//     target of an in-tree plugin's CSI migration) or one the authorizer
//     grants with verb request-serviceaccounts-token-audience (tokens.go,
//     audience.go, migration.go);
//   - leases in kube-node-lease, csinodes, resourceslices, kubelet
//     certificatesigningrequests and podcertificaterequests: only the
//     node's own (others.go, podcert.go).
//
// Refusals are Forbidden errors whose messages are kube-apiserver's, for
// example `pods "p" is forbidden: node "n1" can only delete pods with
// spec.nodeName set to itself`. Stored objects the rules need come from a
// Getter (getter.go): the pod being deleted, evicted or bound to a token is
// read from it, never taken from the request. A missing object is reported
// as kube-apiserver's informer-backed plugin reports it (`pod "p" not
// found`), whatever resource name the Getter used.
//
// # Where it runs
//
// kube-apiserver runs NodeRestriction in the mutating stage (it implements
// Admit only, and changes nothing), for CREATE, UPDATE and DELETE. The
// Plugin here does the same: it is an admission.Mutator and ignores
// CONNECT.
package noderestriction
