package openapi

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

var allVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

func res(group, version, kind, plural string, namespaced bool, subresources ...string) Resource {
	return Resource{
		GVK:          schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
		ListGVK:      schema.GroupVersionKind{Group: group, Version: version, Kind: kind + "List"},
		Plural:       plural,
		Namespaced:   namespaced,
		Subresources: subresources,
		Verbs:        allVerbs,
	}
}

func review(group, version, kind, plural string, namespaced bool) Resource {
	return Resource{
		GVK:        schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
		Plural:     plural,
		Namespaced: namespaced,
		Verbs:      []string{"create"},
	}
}

// servedResources is about what portcullis serves: the built-in kinds an
// API server for the access-control chain needs.
func servedResources() []Resource {
	return []Resource{
		res("", "v1", "Pod", "pods", true, "status", "binding", "eviction", "ephemeralcontainers", "resize", "log"),
		res("", "v1", "ConfigMap", "configmaps", true),
		res("", "v1", "Secret", "secrets", true),
		res("", "v1", "Service", "services", true, "status"),
		res("", "v1", "Namespace", "namespaces", false, "status", "finalize"),
		res("", "v1", "Node", "nodes", false, "status"),
		res("", "v1", "ServiceAccount", "serviceaccounts", true, "token"),
		res("", "v1", "Event", "events", true),
		res("", "v1", "Endpoints", "endpoints", true),
		res("", "v1", "PersistentVolume", "persistentvolumes", false, "status"),
		res("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, "status"),
		res("", "v1", "ReplicationController", "replicationcontrollers", true, "status", "scale"),
		res("", "v1", "LimitRange", "limitranges", true),
		res("", "v1", "ResourceQuota", "resourcequotas", true, "status"),
		res("", "v1", "PodTemplate", "podtemplates", true),
		res("apps", "v1", "Deployment", "deployments", true, "status", "scale"),
		res("apps", "v1", "ReplicaSet", "replicasets", true, "status", "scale"),
		res("apps", "v1", "StatefulSet", "statefulsets", true, "status", "scale"),
		res("apps", "v1", "DaemonSet", "daemonsets", true, "status"),
		res("apps", "v1", "ControllerRevision", "controllerrevisions", true),
		res("batch", "v1", "Job", "jobs", true, "status"),
		res("batch", "v1", "CronJob", "cronjobs", true, "status"),
		res("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
		res("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true),
		res("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false),
		res("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false),
		res("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false),
		res("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false),
		res("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", false, "status"),
		res("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", false),
		res("coordination.k8s.io", "v1", "Lease", "leases", true),
		res("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", false, "status", "approval"),
		res("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true),
		res("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true),
		res("networking.k8s.io", "v1", "Ingress", "ingresses", true, "status"),
		res("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, "status"),
		res("storage.k8s.io", "v1", "StorageClass", "storageclasses", false),
		res("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false),
		res("events.k8s.io", "v1", "Event", "events", true),
		review("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", false),
		review("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", false),
		review("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false),
	}
}

var testInfo = Info{Title: "Kubernetes", Version: "v1.37.2"}

func newTestDocuments(t testing.TB) *Documents {
	t.Helper()
	d, err := New(clientgoscheme.Scheme, servedResources(), testInfo)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return d
}
