package node

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"
)

var (
	node1 = &user.DefaultInfo{Name: "system:node:n1", Groups: []string{"system:nodes", "system:authenticated"}}
	node2 = &user.DefaultInfo{Name: "system:node:n2", Groups: []string{"system:nodes"}}
)

// fixture builds the cluster the rule tests run against: pods on n1 and
// n2 using every kind of reference, a bound volume with kubelet and
// controller secrets, attachments, a slice and a pod certificate request.
func fixture(t *testing.T) *Authorizer {
	a := newTestAuthorizer(t, Options{})
	p1 := testPod("ns", "p1", "n1",
		withSA("sa1"),
		withSecretVolume("s-vol"),
		withEnvSecret("s-env"),
		withConfigMapVolume("cm-vol"),
		withClaim("claim1"),
		withVolume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s-proj"}}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-proj"}}},
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "vault", Path: "t"}},
		}}}),
		withVolume(corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "inline.csi", NodePublishSecretRef: &corev1.LocalObjectReference{Name: "s-csi"}}}),
		withVolume(corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{}}}),
		func(p *corev1.Pod) {
			p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "s-pull"}}
			p.Spec.InitContainers = []corev1.Container{{Name: "init", EnvFrom: []corev1.EnvFromSource{
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-init"}}},
			}}}
			p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("rc1")}}
		},
	)
	a.Upsert(p1)
	a.Upsert(testPod("ns", "p2", "n2", withSA("sa2"), withSecretVolume("s-other")))
	a.Upsert(testPod("ns", "mirror", "n1", mirror, withSecretVolume("s-mirror")))
	a.Upsert(testPod("ns", "pending", "", withSecretVolume("s-pending")))
	a.Upsert(testPV("pv1", "ns", "claim1", corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
		Driver: "pv.csi", VolumeHandle: "h", NodePublishSecretRef: secretRef("ns", "s-pv"), ControllerPublishSecretRef: secretRef("ns", "s-ctrl"),
	}}))
	a.Upsert(testPV("pv2", "ns", "claim2", corev1.PersistentVolumeSource{}))
	a.Upsert(testVA("va1", "n1"))
	a.Upsert(testVA("va2", "n2"))
	a.Upsert(testSlice("slice1", "n1"))
	a.Upsert(testPCR("ns", "pcr1", "n1"))
	return a
}

type attrsOpt func(*authorizer.AttributesRecord)

func req(u user.Info, verb, group, resource, subresource, namespace, name string, opts ...attrsOpt) authorizer.AttributesRecord {
	r := authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, Subresource: subresource,
		Namespace: namespace, Name: name, ResourceRequest: true}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func fieldSelector(field, value string) attrsOpt {
	return func(r *authorizer.AttributesRecord) {
		r.FieldSelectorRequirements = fields.Requirements{{Field: field, Operator: selection.Equals, Value: value}}
	}
}

const noRelation = "no relationship found between node 'n1' and this object"

func TestAuthorize(t *testing.T) {
	a := fixture(t)
	tests := []struct {
		name   string
		attrs  authorizer.AttributesRecord
		want   authorizer.Decision
		reason string
	}{
		// Who the authorizer decides for.
		{"other users have no opinion", req(&user.DefaultInfo{Name: "alice"}, "get", "", "secrets", "", "ns", "s-vol"), noOpinion, ""},
		{"nodes group without a node name", req(&user.DefaultInfo{Name: "kubelet", Groups: []string{"system:nodes"}}, "get", "", "secrets", "", "ns", "s-vol"), noOpinion, ""},
		{"node name outside the nodes group", req(&user.DefaultInfo{Name: "system:node:n1"}, "get", "", "secrets", "", "ns", "s-vol"), noOpinion, ""},
		{"empty node name", req(&user.DefaultInfo{Name: "system:node:", Groups: []string{"system:nodes"}}, "get", "", "secrets", "", "ns", "s-vol"), noOpinion, `unknown node for user "system:node:"`},
		{"no user", req(nil, "get", "", "secrets", "", "ns", "s-vol"), noOpinion, ""},

		// Secrets and config maps through the graph.
		{"secret volume", req(node1, "get", "", "secrets", "", "ns", "s-vol"), allow, ""},
		{"secret env", req(node1, "get", "", "secrets", "", "ns", "s-env"), allow, ""},
		{"projected secret", req(node1, "get", "", "secrets", "", "ns", "s-proj"), allow, ""},
		{"image pull secret", req(node1, "get", "", "secrets", "", "ns", "s-pull"), allow, ""},
		{"inline csi secret", req(node1, "get", "", "secrets", "", "ns", "s-csi"), allow, ""},
		{"pv node secret", req(node1, "get", "", "secrets", "", "ns", "s-pv"), allow, ""},
		{"pv controller secret", req(node1, "get", "", "secrets", "", "ns", "s-ctrl"), noOpinion, noRelation},
		{"secret watch by name", req(node1, "watch", "", "secrets", "", "ns", "s-vol"), allow, ""},
		{"secret list by name", req(node1, "list", "", "secrets", "", "ns", "s-vol"), allow, ""},
		{"secret of another node", req(node1, "get", "", "secrets", "", "ns", "s-other"), noOpinion, noRelation},
		{"secret of that other node", req(node2, "get", "", "secrets", "", "ns", "s-other"), allow, ""},
		{"secret of a mirror pod", req(node1, "get", "", "secrets", "", "ns", "s-mirror"), noOpinion, noRelation},
		{"secret of an unbound pod", req(node1, "get", "", "secrets", "", "ns", "s-pending"), noOpinion, noRelation},
		{"secret in another namespace", req(node1, "get", "", "secrets", "", "other", "s-vol"), noOpinion, noRelation},
		{"secret list of all", req(node1, "list", "", "secrets", "", "ns", ""), noOpinion, "No Object name found"},
		{"secret list across namespaces", req(node1, "list", "", "secrets", "", "", ""), noOpinion, "can only read namespaced object of this type"},
		{"secret update", req(node1, "update", "", "secrets", "", "ns", "s-vol"), noOpinion, "can only read resources of this type"},
		{"secret subresource", req(node1, "get", "", "secrets", "x", "ns", "s-vol"), noOpinion, "cannot read subresource"},
		{"configmap volume", req(node1, "get", "", "configmaps", "", "ns", "cm-vol"), allow, ""},
		{"configmap projected", req(node1, "watch", "", "configmaps", "", "ns", "cm-proj"), allow, ""},
		{"configmap of init container", req(node1, "get", "", "configmaps", "", "ns", "cm-init"), allow, ""},
		{"unknown configmap", req(node1, "get", "", "configmaps", "", "ns", "nope"), noOpinion, noRelation},
		{"configmap delete", req(node1, "delete", "", "configmaps", "", "ns", "cm-vol"), noOpinion, "can only read resources of this type"},

		// Claims, volumes, attachments, resource claims.
		{"claim", req(node1, "get", "", "persistentvolumeclaims", "", "ns", "claim1"), allow, ""},
		{"ephemeral claim", req(node1, "get", "", "persistentvolumeclaims", "", "ns", "p1-v5"), allow, ""},
		{"claim of another node", req(node2, "get", "", "persistentvolumeclaims", "", "ns", "claim1"), noOpinion, "no relationship found between node 'n2' and this object"},
		{"claim list", req(node1, "list", "", "persistentvolumeclaims", "", "ns", ""), noOpinion, "can only get individual resources of this type"},
		{"claim status update", req(node1, "update", "", "persistentvolumeclaims", "status", "ns", "claim1"), allow, ""},
		{"claim status patch elsewhere", req(node2, "patch", "", "persistentvolumeclaims", "status", "ns", "claim1"), noOpinion, "no relationship found between node 'n2' and this object"},
		{"claim status get", req(node1, "get", "", "persistentvolumeclaims", "status", "ns", "claim1"), noOpinion, "can only get/update/patch this type"},
		{"claim other subresource", req(node1, "get", "", "persistentvolumeclaims", "x", "ns", "claim1"), noOpinion, "cannot get subresource"},
		{"volume", req(node1, "get", "", "persistentvolumes", "", "", "pv1"), allow, ""},
		{"volume unused", req(node1, "get", "", "persistentvolumes", "", "", "pv2"), noOpinion, noRelation},
		{"volume list", req(node1, "list", "", "persistentvolumes", "", "", ""), noOpinion, "can only get individual resources of this type"},
		{"attachment", req(node1, "get", "storage.k8s.io", "volumeattachments", "", "", "va1"), allow, ""},
		{"attachment of another node", req(node1, "get", "storage.k8s.io", "volumeattachments", "", "", "va2"), noOpinion, noRelation},
		{"attachment watch", req(node1, "watch", "storage.k8s.io", "volumeattachments", "", "", "va1"), noOpinion, "can only get individual resources of this type"},
		{"resource claim", req(node1, "get", "resource.k8s.io", "resourceclaims", "", "ns", "rc1"), allow, ""},
		{"resource claim elsewhere", req(node2, "get", "resource.k8s.io", "resourceclaims", "", "ns", "rc1"), noOpinion, "no relationship found between node 'n2' and this object"},

		// Service accounts and their tokens.
		{"service account get", req(node1, "get", "", "serviceaccounts", "", "ns", "sa1"), allow, ""},
		{"service account of another node", req(node1, "get", "", "serviceaccounts", "", "ns", "sa2"), noOpinion, noRelation},
		{"token", req(node1, "create", "", "serviceaccounts", "token", "ns", "sa1"), allow, ""},
		{"token of another node's account", req(node1, "create", "", "serviceaccounts", "token", "ns", "sa2"), noOpinion, noRelation},
		{"service account list", req(node1, "list", "", "serviceaccounts", "", "ns", ""), noOpinion, "can only create tokens for individual service accounts"},
		{"service account create", req(node1, "create", "", "serviceaccounts", "", "ns", "sa1"), noOpinion, "can only create token subresource of serviceaccount"},

		// Nodes.
		{"own node", req(node1, "get", "", "nodes", "", "", "n1"), allow, ""},
		{"own node watch", req(node1, "watch", "", "nodes", "", "", "n1"), allow, ""},
		{"other node", req(node1, "get", "", "nodes", "", "", "n2"), noOpinion, "node 'n1' cannot read 'n2', only its own Node object"},
		{"all nodes", req(node1, "list", "", "nodes", "", "", ""), noOpinion, "node 'n1' cannot read all nodes, only its own Node object"},
		{"node create", req(node1, "create", "", "nodes", "", "", ""), allow, ""},
		{"node patch", req(node1, "patch", "", "nodes", "", "", "n2"), allow, ""},
		{"node status", req(node1, "update", "", "nodes", "status", "", "n1"), allow, ""},
		{"node delete", req(node1, "delete", "", "nodes", "", "", "n1"), noOpinion, ""},
		{"node status get", req(node1, "get", "", "nodes", "status", "", "n1"), noOpinion, ""},

		// Pods.
		{"own pod", req(node1, "get", "", "pods", "", "ns", "p1"), allow, ""},
		{"own mirror pod", req(node1, "get", "", "pods", "", "ns", "mirror"), allow, ""},
		{"other node's pod", req(node1, "get", "", "pods", "", "ns", "p2"), noOpinion, noRelation},
		{"pods of the node", req(node1, "list", "", "pods", "", "", "", fieldSelector("spec.nodeName", "n1")), allow, ""},
		{"pods of another node", req(node1, "watch", "", "pods", "", "", "", fieldSelector("spec.nodeName", "n2")), noOpinion, "can only list/watch pods with spec.nodeName field selector"},
		{"all pods", req(node1, "list", "", "pods", "", "", ""), noOpinion, "can only list/watch pods with spec.nodeName field selector"},
		{"one pod watched", req(node1, "watch", "", "pods", "", "ns", "p1"), allow, ""},
		{"pod create", req(node1, "create", "", "pods", "", "ns", ""), allow, ""},
		{"pod delete", req(node1, "delete", "", "pods", "", "ns", "p2"), allow, ""},
		{"pod update", req(node1, "update", "", "pods", "", "ns", "p1"), noOpinion, ""},
		{"pod status", req(node1, "patch", "", "pods", "status", "ns", "p1"), allow, ""},
		{"pod eviction", req(node1, "create", "", "pods", "eviction", "ns", "p1"), allow, ""},
		{"pod log", req(node1, "get", "", "pods", "log", "ns", "p1"), noOpinion, ""},

		// Leases and CSINodes.
		{"own lease", req(node1, "update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n1"), allow, ""},
		{"lease create", req(node1, "create", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), allow, ""},
		{"other lease", req(node1, "get", "coordination.k8s.io", "leases", "", "kube-node-lease", "n2"), noOpinion, "can only access node lease with the same name as the requesting node"},
		{"lease elsewhere", req(node1, "get", "coordination.k8s.io", "leases", "", "kube-system", "n1"), noOpinion, `can only access leases in the "kube-node-lease" system namespace`},
		{"lease list", req(node1, "list", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), noOpinion, "can only get, create, update, patch, or delete a node lease"},
		{"own csinode", req(node1, "patch", "storage.k8s.io", "csinodes", "", "", "n1"), allow, ""},
		{"other csinode", req(node1, "get", "storage.k8s.io", "csinodes", "", "", "n2"), noOpinion, "can only access CSINode with the same name as the requesting node"},
		{"csinode watch", req(node1, "watch", "storage.k8s.io", "csinodes", "", "", "n1"), noOpinion, "can only get, create, update, patch, or delete a CSINode"},
		{"csinode subresource", req(node1, "get", "storage.k8s.io", "csinodes", "x", "", "n1"), noOpinion, "cannot authorize CSINode subresources"},

		// Resource slices and pod certificate requests.
		{"slice create", req(node1, "create", "resource.k8s.io", "resourceslices", "", "", ""), allow, ""},
		{"own slice", req(node1, "delete", "resource.k8s.io", "resourceslices", "", "", "slice1"), allow, ""},
		{"other slice", req(node2, "update", "resource.k8s.io", "resourceslices", "", "", "slice1"), noOpinion, "no relationship found between node 'n2' and this object"},
		{"slices of the node", req(node1, "deletecollection", "resource.k8s.io", "resourceslices", "", "", "", fieldSelector("spec.nodeName", "n1")), allow, ""},
		{"all slices", req(node1, "list", "resource.k8s.io", "resourceslices", "", "", ""), noOpinion, "can only list/watch/deletecollection resourceslices with nodeName field selector"},
		{"slice subresource", req(node1, "get", "resource.k8s.io", "resourceslices", "status", "", "slice1"), noOpinion, "cannot authorize ResourceSlice subresources"},
		{"slice proxy", req(node1, "proxy", "resource.k8s.io", "resourceslices", "", "", "slice1"), noOpinion, "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection"},
		{"pcr create", req(node1, "create", "certificates.k8s.io", "podcertificaterequests", "", "ns", ""), allow, ""},
		{"own pcr", req(node1, "get", "certificates.k8s.io", "podcertificaterequests", "", "ns", "pcr1"), allow, ""},
		{"other pcr", req(node2, "get", "certificates.k8s.io", "podcertificaterequests", "", "ns", "pcr1"), noOpinion, "no relationship found between node 'n2' and this object"},
		{"pcrs of the node", req(node1, "watch", "certificates.k8s.io", "podcertificaterequests", "", "", "", fieldSelector("spec.nodeName", "n1")), allow, ""},
		{"all pcrs", req(node1, "list", "certificates.k8s.io", "podcertificaterequests", "", "", ""), noOpinion, "can only list/watch podcertificaterequests with nodeName field selector"},
		{"pcr status", req(node1, "update", "certificates.k8s.io", "podcertificaterequests", "status", "ns", "pcr1"), noOpinion, "nodes may not access the status subresource of PodCertificateRequests"},
		{"pcr delete", req(node1, "delete", "certificates.k8s.io", "podcertificaterequests", "", "ns", "pcr1"), noOpinion, "nodes may not delete podcertificaterequests"},

		// The static part of system:node.
		{"token review", req(node1, "create", "authentication.k8s.io", "tokenreviews", "", "", ""), allow, ""},
		{"subject access review", req(node1, "create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""), allow, ""},
		{"local subject access review", req(node1, "create", "authorization.k8s.io", "localsubjectaccessreviews", "", "ns", ""), allow, ""},
		{"services", req(node1, "watch", "", "services", "", "", ""), allow, ""},
		{"events", req(node1, "create", "", "events", "", "ns", ""), allow, ""},
		{"events read", req(node1, "list", "", "events", "", "ns", ""), noOpinion, ""},
		{"endpoints", req(node1, "get", "", "endpoints", "", "ns", "glusterfs"), allow, ""},
		{"csr create", req(node1, "create", "certificates.k8s.io", "certificatesigningrequests", "", "", ""), allow, ""},
		{"csr approve", req(node1, "update", "certificates.k8s.io", "certificatesigningrequests", "approval", "", "x"), noOpinion, ""},
		{"csi drivers", req(node1, "list", "storage.k8s.io", "csidrivers", "", "", ""), allow, ""},
		{"runtime classes", req(node1, "watch", "node.k8s.io", "runtimeclasses", "", "", ""), allow, ""},
		{"trust bundles", req(node1, "get", "certificates.k8s.io", "clustertrustbundles", "", "", "b"), allow, ""},
		{"namespaces", req(node1, "get", "", "namespaces", "", "", "ns"), noOpinion, ""},
		{"deployments", req(node1, "list", "apps", "deployments", "", "", ""), noOpinion, ""},
		{"non-resource", authorizer.AttributesRecord{User: node1, Verb: "get", Path: "/healthz"}, noOpinion, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if d != tt.want || reason != tt.reason {
				t.Errorf("got %v %q, want %v %q", d, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestNodeName(t *testing.T) {
	tests := []struct {
		user   user.Info
		name   string
		isNode bool
	}{
		{&user.DefaultInfo{Name: "system:node:a.b", Groups: []string{"x", "system:nodes"}}, "a.b", true},
		{&user.DefaultInfo{Name: "system:node:", Groups: []string{"system:nodes"}}, "", true},
		{&user.DefaultInfo{Name: "system:nodes:a", Groups: []string{"system:nodes"}}, "", false},
		{&user.DefaultInfo{Name: "system:node:a"}, "", false},
		{&user.DefaultInfo{Name: "a", Groups: []string{"system:nodes"}}, "", false},
		{nil, "", false},
	}
	for _, tt := range tests {
		name, isNode := NodeName(tt.user)
		if name != tt.name || isNode != tt.isNode {
			t.Errorf("NodeName(%v) = %q %v, want %q %v", tt.user, name, isNode, tt.name, tt.isNode)
		}
	}
}
