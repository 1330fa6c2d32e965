package node

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

const (
	allow     = authorizer.DecisionAllow
	noOpinion = authorizer.DecisionNoOpinion
)

// subdivided decides the resources the authorizer restricts per object or
// per node; ok is false for the others, which the static rules decide.
func (a *Authorizer) subdivided(nodeName string, attrs authorizer.Attributes) (d authorizer.Decision, reason string, ok bool) {
	switch attrs.GetAPIGroup() {
	case "":
		switch attrs.GetResource() {
		case "secrets":
			d, reason = a.read(nodeName, kindSecret, attrs)
		case "configmaps":
			d, reason = a.read(nodeName, kindConfigMap, attrs)
		case "persistentvolumeclaims":
			if attrs.GetSubresource() == "status" {
				d, reason = a.statusUpdate(nodeName, kindPVC, attrs)
			} else {
				d, reason = a.get(nodeName, kindPVC, attrs)
			}
		case "persistentvolumes":
			d, reason = a.get(nodeName, kindPV, attrs)
		case "serviceaccounts":
			d, reason = a.serviceAccount(nodeName, attrs)
		case "nodes":
			d, reason = nodeRule(nodeName, attrs)
		case "pods":
			d, reason = a.pod(nodeName, attrs)
		default:
			return 0, "", false
		}
	case "storage.k8s.io":
		switch attrs.GetResource() {
		case "volumeattachments":
			d, reason = a.get(nodeName, kindVolumeAttachment, attrs)
		case "csinodes":
			d, reason = csiNodeRule(nodeName, attrs)
		default:
			return 0, "", false
		}
	case "resource.k8s.io":
		switch attrs.GetResource() {
		case "resourceclaims":
			d, reason = a.get(nodeName, kindResourceClaim, attrs)
		case "resourceslices":
			d, reason = a.resourceSlice(nodeName, attrs)
		default:
			return 0, "", false
		}
	case "coordination.k8s.io":
		if attrs.GetResource() != "leases" {
			return 0, "", false
		}
		d, reason = leaseRule(nodeName, attrs)
	case "certificates.k8s.io":
		if attrs.GetResource() != "podcertificaterequests" {
			return 0, "", false
		}
		d, reason = a.podCertificateRequest(nodeName, attrs)
	default:
		return 0, "", false
	}
	return d, reason, true
}

// path allows a named object the graph connects to the node.
func (a *Authorizer) path(nodeName string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string) {
	if attrs.GetName() == "" {
		return noOpinion, "No Object name found"
	}
	if !a.related(nodeName, k, attrs.GetNamespace(), attrs.GetName()) {
		return noOpinion, "no relationship found between node '" + nodeName + "' and this object"
	}
	return allow, ""
}

// read allows get, list and watch of one named, namespaced object related
// to the node (a list or watch names its object with a metadata.name
// field selector, as the kubelet's secret and configmap watches do).
func (a *Authorizer) read(nodeName string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string) {
	switch attrs.GetVerb() {
	case "get", "list", "watch":
	default:
		return noOpinion, "can only read resources of this type"
	}
	if attrs.GetSubresource() != "" {
		return noOpinion, "cannot read subresource"
	}
	if attrs.GetNamespace() == "" {
		return noOpinion, "can only read namespaced object of this type"
	}
	return a.path(nodeName, k, attrs)
}

// get allows get of one object related to the node.
func (a *Authorizer) get(nodeName string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string) {
	if attrs.GetVerb() != "get" {
		return noOpinion, "can only get individual resources of this type"
	}
	if attrs.GetSubresource() != "" {
		return noOpinion, "cannot get subresource"
	}
	return a.path(nodeName, k, attrs)
}

// statusUpdate allows update and patch of the status of an object related
// to the node (a claim the kubelet resizes); NodeRestriction limits what
// the update may change.
func (a *Authorizer) statusUpdate(nodeName string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string) {
	switch attrs.GetVerb() {
	case "update", "patch":
	default:
		return noOpinion, "can only get/update/patch this type"
	}
	return a.path(nodeName, k, attrs)
}

// serviceAccount allows get of the service accounts of the node's pods
// (the kubelet reads their annotations for image credential providers),
// and tokens for them; NodeRestriction binds the token to a pod of the
// node and checks its audience.
func (a *Authorizer) serviceAccount(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	if attrs.GetVerb() == "get" && attrs.GetSubresource() == "" {
		return a.read(nodeName, kindServiceAccount, attrs)
	}
	if attrs.GetVerb() != "create" || attrs.GetName() == "" {
		return noOpinion, "can only create tokens for individual service accounts"
	}
	if attrs.GetSubresource() != "token" {
		return noOpinion, "can only create token subresource of serviceaccount"
	}
	return a.path(nodeName, kindServiceAccount, attrs)
}

// nodeRule allows a node to read its own Node object (by name, not through
// the graph, so that it can look before it registers) and to create and
// write nodes and node status, which NodeRestriction limits to its own.
func nodeRule(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "create", "update", "patch":
			return allow, ""
		case "get", "list", "watch":
			switch attrs.GetName() {
			case nodeName:
				return allow, ""
			case "":
				return noOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", nodeName)
			default:
				return noOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", nodeName, attrs.GetName())
			}
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return allow, ""
		}
	}
	return noOpinion, ""
}

// pod allows reads of the node's pods (one related pod, or a list or watch
// selecting spec.nodeName=<node>), creation and deletion of mirror pods,
// status updates and evictions; NodeRestriction limits the writes to pods
// bound to the node.
func (a *Authorizer) pod(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "get":
			return a.get(nodeName, kindPod, attrs)
		case "list", "watch":
			if selectsField(attrs, "spec.nodeName", nodeName) {
				return allow, ""
			}
			if attrs.GetName() != "" {
				return a.path(nodeName, kindPod, attrs)
			}
			return noOpinion, "can only list/watch pods with spec.nodeName field selector"
		case "create", "delete":
			return allow, ""
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return allow, ""
		}
	case "eviction":
		if attrs.GetVerb() == "create" {
			return allow, ""
		}
	}
	return noOpinion, ""
}

// leaseRule allows a node its own Lease in kube-node-lease. Create is
// allowed whatever the name, which the authorizer cannot see;
// NodeRestriction checks it.
func leaseRule(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	verb := attrs.GetVerb()
	switch verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return noOpinion, "can only get, create, update, patch, or delete a node lease"
	}
	if attrs.GetNamespace() != corev1.NamespaceNodeLease {
		return noOpinion, fmt.Sprintf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease)
	}
	if verb != "create" && attrs.GetName() != nodeName {
		return noOpinion, "can only access node lease with the same name as the requesting node"
	}
	return allow, ""
}

// csiNodeRule allows a node its own CSINode, like leaseRule.
func csiNodeRule(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	verb := attrs.GetVerb()
	switch verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return noOpinion, "can only get, create, update, patch, or delete a CSINode"
	}
	if attrs.GetSubresource() != "" {
		return noOpinion, "cannot authorize CSINode subresources"
	}
	if verb != "create" && attrs.GetName() != nodeName {
		return noOpinion, "can only access CSINode with the same name as the requesting node"
	}
	return allow, ""
}

// resourceSlice allows a node the ResourceSlices of its node: create
// (NodeRestriction checks spec.nodeName), reads and writes of a slice the
// graph connects to it, and collections selected by spec.nodeName.
func (a *Authorizer) resourceSlice(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	if attrs.GetSubresource() != "" {
		return noOpinion, "cannot authorize ResourceSlice subresources"
	}
	switch attrs.GetVerb() {
	case "create":
		return allow, ""
	case "get", "update", "patch", "delete":
		return a.path(nodeName, kindResourceSlice, attrs)
	case "watch", "list", "deletecollection":
		if selectsField(attrs, "spec.nodeName", nodeName) {
			return allow, ""
		}
		return noOpinion, "can only list/watch/deletecollection resourceslices with nodeName field selector"
	}
	return noOpinion, "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection"
}

// podCertificateRequest allows a node to create PodCertificateRequests
// (NodeRestriction checks them), read those of its node, and list or
// watch them selected by spec.nodeName.
func (a *Authorizer) podCertificateRequest(nodeName string, attrs authorizer.Attributes) (authorizer.Decision, string) {
	if attrs.GetSubresource() != "" {
		return noOpinion, "nodes may not access the status subresource of PodCertificateRequests"
	}
	switch attrs.GetVerb() {
	case "create":
		return allow, ""
	case "get":
		return a.path(nodeName, kindPodCertificateRequest, attrs)
	case "list", "watch":
		if selectsField(attrs, "spec.nodeName", nodeName) {
			return allow, ""
		}
		return noOpinion, "can only list/watch podcertificaterequests with nodeName field selector"
	}
	return noOpinion, fmt.Sprintf("nodes may not %s podcertificaterequests", attrs.GetVerb())
}

// selectsField reports whether the request's field selector requires
// field=value. A selector that failed to parse selects nothing.
func selectsField(attrs authorizer.Attributes, field, value string) bool {
	reqs, err := attrs.GetFieldSelector()
	if err != nil {
		return false
	}
	for _, r := range reqs {
		if r.Field == field && r.Value == value && (r.Operator == selection.Equals || r.Operator == selection.DoubleEquals) {
			return true
		}
	}
	return false
}
