package node

import (
	"slices"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// staticKey names a resource, with its subresource, in an API group.
type staticKey struct {
	group, resource, subresource string
}

// staticRules are the rules of kube-apiserver's system:node role that the
// Node authorizer applies unchanged to every node: the resources it does
// not subdivide. (system:node also lists secrets, configmaps, claims,
// volumes, attachments, service account tokens, leases, CSINodes, nodes,
// pods, resource claims and slices and pod certificate requests; for
// those the authorizer decides per object in rules.go, so those rules
// are never reached here and are left out.)
var staticRules = map[staticKey][]string{
	// Delegated authentication and authorization of the kubelet's API.
	{"authentication.k8s.io", "tokenreviews", ""}:             {"create"},
	{"authorization.k8s.io", "subjectaccessreviews", ""}:      {"create"},
	{"authorization.k8s.io", "localsubjectaccessreviews", ""}: {"create"},
	// Service environment variables of containers.
	{"", "services", ""}: {"get", "list", "watch"},
	// Events about the node and its pods.
	{"", "events", ""}: {"create", "update", "patch"},
	// Endpoints of glusterfs volumes.
	{"", "endpoints", ""}: {"get"},
	// TLS bootstrap and client certificate rotation.
	{"certificates.k8s.io", "certificatesigningrequests", ""}: {"create", "get", "list", "watch"},
	// CSI drivers, runtime classes, and the trust bundles of
	// clusterTrustBundle projections.
	{"storage.k8s.io", "csidrivers", ""}:               {"get", "list", "watch"},
	{"node.k8s.io", "runtimeclasses", ""}:              {"get", "list", "watch"},
	{"certificates.k8s.io", "clustertrustbundles", ""}: {"get", "list", "watch"},
}

// staticAllows reports whether the static rules allow a resource request.
// Non-resource requests are never allowed: system:node has no
// non-resource rules.
func staticAllows(a authorizer.Attributes) bool {
	if !a.IsResourceRequest() {
		return false
	}
	verbs, ok := staticRules[staticKey{a.GetAPIGroup(), a.GetResource(), a.GetSubresource()}]
	return ok && slices.Contains(verbs, a.GetVerb())
}
