// Package nodedeclaredfeatures is the NodeDeclaredFeatureValidator
// admission plugin: an update of a pod bound to a node may not need
// features the node has not declared (node.status.declaredFeatures), and a
// ResourceSlice may not hand out node-allocatable resources on nodes that
// do not declare DRANodeAllocatableResources.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin behind
// the NodeDeclaredFeatures feature gate, GA and locked on in 1.37, so always
// on here. The inference of what an update needs and the match against a
// node are k8s.io/component-helpers/nodedeclaredfeatures' DefaultFramework,
// the library kube-apiserver uses, asked for the server's version.
//
// Pods: UPDATE of pods and pods/resize, for a pod with spec.nodeName set
// whose metadata.generation changed. When the update needs features
// (pod-level resource resize, non-sidecar init container resize, memory
// backed volume resize, ...), the node must declare them all; otherwise
// Forbidden: "pod update requires features <a, b> which are not available
// on node %q". A missing node is "node %q not found".
//
// ResourceSlices (resource.k8s.io v1, v1beta2, v1beta1): CREATE and UPDATE.
// Behind the DRANodeAllocatableResources gate (alpha, off by default in
// 1.37; New takes its value), every device with nodeAllocatableResources
// must map to nodes (its own nodeName, nodeSelector or allNodes with
// perDeviceNodeSelection, else the slice's), and every node it maps to
// must declare DRANodeAllocatableResources.
//
// An object of the wrong type is a BadRequest, as there. kube-apiserver's
// "not yet ready to handle request" (node informer not synced) has no
// counterpart: nodes are read from the store.
package nodedeclaredfeatures
