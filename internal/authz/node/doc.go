// Package node is the Node authorizer: it lets each kubelet reach what
// belongs to its node and nothing else, as kube-apiserver's
// --authorization-mode=Node does ("Using Node Authorization").
//
// # Who it decides for
//
// Only node identities: users named system:node:<nodeName> in the group
// system:nodes (NodeName). Everyone else, including members of
// system:nodes with other names, gets no opinion, so the rest of the chain
// decides. A refusal is NoOpinion too, never Deny, with kube-apiserver's
// reason ("no relationship found between node 'n1' and this object"), so
// that RBAC may still allow what an administrator granted.
//
// # What a node may do
//
// The authorizer subdivides some resources and decides them per object or
// per node (rules.go):
//
//   - secrets, configmaps: get, list, watch of one named object related to
//     the node; serviceaccounts: get of a related one, and create of its
//     token subresource;
//   - persistentvolumeclaims, persistentvolumes, volumeattachments,
//     resourceclaims: get of a related object; persistentvolumeclaims/status:
//     update, patch of a related claim;
//   - nodes: its own Node by name (get, list, watch); create, update, patch
//     of nodes and nodes/status, which NodeRestriction limits to its own;
//   - pods: get of a related pod, list and watch with the field selector
//     spec.nodeName=<node> (or of one related pod); create and delete
//     (mirror pods), pods/status update and patch, pods/eviction create,
//     all limited by NodeRestriction to pods bound to the node;
//   - leases in kube-node-lease and csinodes: its own, by name (create of
//     any name; NodeRestriction checks the name);
//   - resourceslices and podcertificaterequests: create, reads of related
//     objects, lists selected by spec.nodeName.
//
// Everything else a node may do is the static part of kube-apiserver's
// system:node role, applied to every node alike (static.go): create
// tokenreviews, subjectaccessreviews and localsubjectaccessreviews; read
// services; write events; get endpoints; create and read
// certificatesigningrequests; read csidrivers, runtimeclasses and
// clustertrustbundles. The system:node role itself stays unbound, as in
// kube-apiserver when the Node mode is on: binding it to system:nodes
// would give every node every secret.
//
// # The graph
//
// Relations come from the objects fed to Upsert and Delete (graph.go).
// Every edge points towards a node:
//
//	pod -> node
//	secret, configmap, pvc, serviceaccount, resourceclaim -> pod
//	pv -> pvc        (a bound volume), secret -> pv (its kubelet secrets)
//	volumeattachment, resourceslice, podcertificaterequest -> node
//
// An object is related to a node when a path leads from it to the node.
// Only pods bound to a node have edges; a mirror pod has only pod -> node,
// so that a node cannot grant itself anything by creating one. A pod
// update changes only the edges that differ, so two pods sharing a secret
// each hold their own edge and removing one pod keeps the other's.
//
// Vertices are numbered and kept in fixed blocks, found through a map from
// the hash of their name (namespaces are numbered too), so that the
// garbage collector scans no map of names; an edge is a vertex number, and
// edge sets are slices while small and maps once large. A vertex with many
// edges keeps a destination index, counting per node the pods it reaches,
// so a decision about an object shared by thousands of pods is one map
// lookup. A decision is two lookups, to find the object and the node, then
// a walk of at most four edges, under a read lock.
//
// # Token audiences
//
// AudienceAllowed and PodAudienceAllowed serve the service account token
// audience restriction of NodeRestriction (audience.go): the audiences a
// node may request without a further authorization check are the API
// server's, and those its pods name in projected token volumes or through
// the spec.tokenRequests of the CSI drivers they use. CSIDrivers fed to
// Upsert supply the latter.
//
// # Feeding it
//
// The caller lists and watches Pods, PersistentVolumes, VolumeAttachments,
// CSIDrivers, ResourceSlices and PodCertificateRequests and passes every
// object to Upsert and every deletion to Delete. Until the first list is
// fed, nodes are refused what they will later be allowed. Graph changes
// are timed in node_authorizer_graph_actions_duration_seconds.
package node
