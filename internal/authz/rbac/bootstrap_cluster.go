package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// Labels that gather rules into the aggregated admin, edit and view roles.
const (
	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// aggregated is a ClusterRole whose rules are gathered from the roles that
// carry the label selector; its own labels feed larger roles (view feeds
// edit, edit feeds admin).
func aggregated(name, selectLabel string, labels map[string]string) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{selectLabel: "true"}},
		}},
	}
}

func labelled(r rbacv1.ClusterRole, label string) rbacv1.ClusterRole {
	r.Labels = map[string]string{label: "true"}
	return r
}

func clusterRoles() []rbacv1.ClusterRole {
	return []rbacv1.ClusterRole{
		// The role that can do anything.
		clusterRole("cluster-admin",
			verbs("*").groups("*").resources("*"),
			verbs("*").urls("*"),
		),

		// The user-facing roles, assembled from the aggregate-to-* pieces
		// below and from whatever extensions add with the same labels.
		aggregated("admin", aggregateToAdmin, nil),
		aggregated("edit", aggregateToEdit, map[string]string{aggregateToAdmin: "true"}),
		aggregated("view", aggregateToView, map[string]string{aggregateToEdit: "true"}),

		// admin is edit plus managing access within a namespace.
		labelled(clusterRole("system:aggregate-to-admin",
			verbs("create").groups(groupAuthz).resources("localsubjectaccessreviews"),
			verbs(readWriteVerbs...).groups(groupRBAC).resources("roles", "rolebindings"),
		), aggregateToAdmin),

		// edit changes workloads and reads secrets, but not quota, limits or
		// the status written by the system.
		labelled(clusterRole("system:aggregate-to-edit",
			verbs(readVerbs...).groups(groupCore).resources("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
			verbs("impersonate").groups(groupCore).resources("serviceaccounts"),
			verbs(writeVerbs...).groups(groupCore).resources("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
			verbs("create").groups(groupCore).resources("pods/eviction"),
			verbs(writeVerbs...).groups(groupCore).resources("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
				"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets", "events"),
			verbs("create").groups(groupCore).resources("serviceaccounts/token"),
			verbs(writeVerbs...).groups(groupApps).resources("statefulsets", "statefulsets/scale", "daemonsets",
				"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
			verbs(writeVerbs...).groups(groupAutoscaling).resources("horizontalpodautoscalers"),
			verbs(writeVerbs...).groups(groupBatch).resources("jobs", "cronjobs"),
			verbs(writeVerbs...).groups(groupExtensions).resources("daemonsets", "deployments", "deployments/scale", "deployments/rollback",
				"ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
			verbs(writeVerbs...).groups(groupPolicy).resources("poddisruptionbudgets"),
			verbs(writeVerbs...).groups(groupNetworking).resources("networkpolicies", "ingresses"),
			verbs(readWriteVerbs...).groups(groupCoordination).resources("leases"),
			verbs(writeVerbs...).groups(groupResource).resources("resourceclaims", "resourceclaimtemplates"),
		), aggregateToEdit),

		// view reads what is not secret and does not let one escalate.
		labelled(clusterRole("system:aggregate-to-view",
			verbs(readVerbs...).groups(groupCore).resources("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
				"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
			verbs(readVerbs...).groups(groupCore).resources("limitranges", "resourcequotas", "bindings", "events",
				"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
			// Reading namespaces inside a namespace means reading that one:
			// a sign of which namespaces one has access to.
			verbs(readVerbs...).groups(groupCore).resources("namespaces"),
			verbs(readVerbs...).groups(groupDiscovery).resources("endpointslices"),
			verbs(readVerbs...).groups(groupApps).resources("controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
				"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
				"replicasets", "replicasets/status", "replicasets/scale"),
			verbs(readVerbs...).groups(groupAutoscaling).resources("horizontalpodautoscalers", "horizontalpodautoscalers/status"),
			verbs(readVerbs...).groups(groupBatch).resources("jobs", "cronjobs", "cronjobs/status", "jobs/status"),
			verbs(readVerbs...).groups(groupExtensions).resources("daemonsets", "daemonsets/status", "deployments", "deployments/scale",
				"deployments/status", "ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status",
				"replicationcontrollers/scale", "networkpolicies"),
			verbs(readVerbs...).groups(groupPolicy).resources("poddisruptionbudgets", "poddisruptionbudgets/status"),
			verbs(readVerbs...).groups(groupNetworking).resources("networkpolicies", "ingresses", "ingresses/status"),
			verbs(readVerbs...).groups(groupResource).resources("resourceclaims", "resourceclaims/status", "resourceclaimtemplates"),
		), aggregateToView),

		// What every user may do to learn about themselves and the API.
		clusterRole("system:basic-user",
			verbs("create").groups(groupAuthz).resources("selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			verbs("create").groups(groupAuthn).resources("selfsubjectreviews"),
		),
		clusterRole("system:discovery",
			verbs("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/",
				"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"),
		),
		clusterRole("system:public-info-viewer",
			verbs("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/"),
		),
		clusterRole("system:monitoring",
			verbs("get").urls("/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
				"/livez/*", "/readyz/*", "/healthz/*"),
		),
		clusterRole("system:service-account-issuer-discovery",
			verbs("get").urls("/.well-known/openid-configuration", "/.well-known/openid-configuration/",
				"/openid/v1/jwks", "/openid/v1/jwks/"),
		),

		// Delegated authentication and authorization, for extension servers.
		clusterRole("system:auth-delegator",
			verbs("create").groups(groupAuthn).resources("tokenreviews"),
			verbs("create").groups(groupAuthz).resources("subjectaccessreviews"),
		),
		clusterRole("system:heapster",
			verbs(readVerbs...).groups(groupCore).resources("events", "pods", "nodes", "namespaces"),
			verbs(readVerbs...).groups(groupExtensions).resources("deployments"),
		),
		clusterRole("system:kube-aggregator",
			verbs(readVerbs...).groups(groupCore).resources("services", "endpoints"),
		),
		clusterRole("system:kube-dns",
			verbs("list", "watch").groups(groupCore).resources("endpoints", "services"),
		),

		// Nodes and the components that run beside them.
		{ObjectMeta: metav1.ObjectMeta{Name: "system:node"}, Rules: nodeRules()},
		clusterRole("system:node-bootstrapper",
			verbs("create", "get", "list", "watch").groups(groupCertificates).resources("certificatesigningrequests"),
		),
		clusterRole("system:node-problem-detector",
			verbs("get").groups(groupCore).resources("nodes"),
			verbs("patch").groups(groupCore).resources("nodes/status"),
			eventsRule(),
		),
		clusterRole("system:node-proxier",
			verbs("list", "watch").groups(groupCore).resources("services", "endpoints"),
			verbs(readVerbs...).groups(groupCore).resources("nodes"),
			eventsRule(),
			verbs("list", "watch").groups(groupNetworking).resources("servicecidrs"),
			verbs("list", "watch").groups(groupDiscovery).resources("endpointslices"),
		),
		clusterRole("system:kubelet-api-admin",
			verbs(readVerbs...).groups(groupCore).resources("nodes"),
			verbs("proxy").groups(groupCore).resources("nodes"),
			verbs("*").groups(groupCore).resources("nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"),
			verbs("*").groups(groupCore).resources("nodes/pods", "nodes/healthz", "nodes/configz"),
		),
		clusterRole("system:persistent-volume-provisioner",
			verbs("get", "list", "watch", "create", "delete").groups(groupCore).resources("persistentvolumes"),
			// update sets the lock annotations on claims.
			verbs("get", "list", "watch", "update").groups(groupCore).resources("persistentvolumeclaims"),
			verbs(readVerbs...).groups(groupStorage).resources("storageclasses"),
			verbs("watch").groups(groupCore).resources("events"),
			eventsRule(),
		),
		clusterRole("system:volume-scheduler",
			verbs(readUpdateVerbs...).groups(groupCore).resources("persistentvolumes"),
			verbs(readVerbs...).groups(groupStorage).resources("storageclasses"),
			verbs(readUpdateVerbs...).groups(groupCore).resources("persistentvolumeclaims"),
		),

		// Control-plane components that authenticate as themselves.
		clusterRole("system:kube-controller-manager",
			eventsRule(),
			verbs("create").groups(groupCoordination).resources("leases"),
			verbs("get", "update").groups(groupCoordination).resources("leases").names("kube-controller-manager"),
			verbs("create").groups(groupCore).resources("secrets", "serviceaccounts"),
			verbs("delete").groups(groupCore).resources("secrets"),
			verbs("get").groups(groupCore).resources("namespaces", "secrets", "serviceaccounts", "configmaps"),
			verbs("update").groups(groupCore).resources("secrets", "serviceaccounts"),
			verbs("create").groups(groupAuthn).resources("tokenreviews"),
			verbs("create").groups(groupAuthz).resources("subjectaccessreviews"),
			// Shared informers list and watch everything.
			verbs("list", "watch").groups("*").resources("*"),
			verbs("create").groups(groupCore).resources("serviceaccounts/token"),
		),
		clusterRole("system:kube-scheduler",
			eventsRule(),
			verbs("create").groups(groupCoordination).resources("leases"),
			verbs("get", "update").groups(groupCoordination).resources("leases").names("kube-scheduler"),
			verbs(readVerbs...).groups(groupCore).resources("nodes"),
			verbs("get", "list", "watch", "delete").groups(groupCore).resources("pods"),
			verbs("create").groups(groupCore).resources("pods/binding", "bindings"),
			verbs("patch", "update").groups(groupCore).resources("pods/status"),
			verbs(readVerbs...).groups(groupCore).resources("services", "replicationcontrollers"),
			verbs(readVerbs...).groups(groupApps, groupExtensions).resources("replicasets"),
			verbs(readVerbs...).groups(groupApps).resources("statefulsets"),
			verbs(readVerbs...).groups(groupPolicy).resources("poddisruptionbudgets"),
			verbs(readVerbs...).groups(groupCore).resources("persistentvolumeclaims", "persistentvolumes"),
			verbs("create").groups(groupAuthn).resources("tokenreviews"),
			verbs("create").groups(groupAuthz).resources("subjectaccessreviews"),
			verbs(readVerbs...).groups(groupStorage).resources("csinodes"),
			verbs(readVerbs...).groups(groupCore).resources("namespaces"),
			verbs(readVerbs...).groups(groupStorage).resources("csidrivers"),
			verbs(readVerbs...).groups(groupStorage).resources("csistoragecapacities"),
			verbs(readVerbs...).groups(groupResource).resources("deviceclasses"),
			verbs(readUpdateVerbs...).groups(groupResource).resources("resourceclaims"),
			verbs(readUpdateVerbs...).groups(groupResource).resources("resourceclaims/status"),
			verbs(readUpdateVerbs...).groups(groupCore).resources("pods/finalizers"),
			verbs(readVerbs...).groups(groupResource).resources("resourceslices"),
		),

		// Approval of certificate signing requests, per signer.
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient",
			verbs("create").groups(groupCertificates).resources("certificatesigningrequests/nodeclient"),
		),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
			verbs("create").groups(groupCertificates).resources("certificatesigningrequests/selfnodeclient"),
		),
		clusterRole("system:certificates.k8s.io:legacy-unknown-approver",
			verbs("approve").groups(groupCertificates).resources("signers").names("kubernetes.io/legacy-unknown"),
		),
		clusterRole("system:certificates.k8s.io:kubelet-serving-approver",
			verbs("approve").groups(groupCertificates).resources("signers").names("kubernetes.io/kubelet-serving"),
		),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-approver",
			verbs("approve").groups(groupCertificates).resources("signers").names("kubernetes.io/kube-apiserver-client"),
		),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
			verbs("approve").groups(groupCertificates).resources("signers").names("kubernetes.io/kube-apiserver-client-kubelet"),
		),
	}
}

// nodeRules is what every kubelet may do. The Node authorizer and the
// NodeRestriction admission plugin narrow most of it to the node's own
// objects; system:node itself is no longer bound to anyone by default.
func nodeRules() []rbacv1.PolicyRule {
	return rules(
		// Checking API access; these creates change nothing.
		verbs("create").groups(groupAuthn).resources("tokenreviews"),
		verbs("create").groups(groupAuthz).resources("subjectaccessreviews", "localsubjectaccessreviews"),
		// Service environment variables.
		verbs(readVerbs...).groups(groupCore).resources("services"),
		// Registering and reporting on the node.
		verbs("create", "get", "list", "watch").groups(groupCore).resources("nodes"),
		verbs("update", "patch").groups(groupCore).resources("nodes/status"),
		verbs("update", "patch").groups(groupCore).resources("nodes"),
		verbs("create", "update", "patch").groups(groupCore).resources("events"),
		// Pods: reading them, mirror pods, status and evictions.
		verbs(readVerbs...).groups(groupCore).resources("pods"),
		verbs("create", "delete").groups(groupCore).resources("pods"),
		verbs("update", "patch").groups(groupCore).resources("pods/status"),
		verbs("create").groups(groupCore).resources("pods/eviction"),
		// What pods mount and reference.
		verbs("get", "list", "watch").groups(groupCore).resources("secrets", "configmaps"),
		verbs("get").groups(groupCore).resources("persistentvolumeclaims", "persistentvolumes"),
		verbs("get").groups(groupCore).resources("endpoints"),
		// Rotating the kubelet's own certificate.
		verbs("create", "get", "list", "watch").groups(groupCertificates).resources("certificatesigningrequests"),
		// Node heartbeats.
		verbs("get", "create", "update", "patch", "delete").groups(groupCoordination).resources("leases"),
		verbs("get").groups(groupStorage).resources("volumeattachments"),
		verbs("create").groups(groupCore).resources("serviceaccounts/token"),
		verbs("get", "update", "patch").groups(groupCore).resources("persistentvolumeclaims/status"),
		verbs("get", "watch", "list").groups(groupStorage).resources("csidrivers"),
		verbs("get", "create", "update", "patch", "delete").groups(groupStorage).resources("csinodes"),
		verbs("get", "list", "watch").groups(groupNode).resources("runtimeclasses"),
		// Dynamic resource allocation.
		verbs("get").groups(groupResource).resources("resourceclaims"),
		verbs("deletecollection").groups(groupResource).resources("resourceslices"),
		// Checking a service account's audiences before requesting a token.
		verbs("get").groups(groupCore).resources("serviceaccounts"),
	)
}

func clusterRoleBindings() []rbacv1.ClusterRoleBinding {
	return []rbacv1.ClusterRoleBinding{
		clusterBinding("cluster-admin", groupSubject(user.SystemPrivilegedGroup)),
		clusterBinding("system:monitoring", groupSubject(user.MonitoringGroup)),
		clusterBinding("system:discovery", groupSubject(user.AllAuthenticated)),
		clusterBinding("system:basic-user", groupSubject(user.AllAuthenticated)),
		clusterBinding("system:public-info-viewer", groupSubject(user.AllAuthenticated), groupSubject(user.AllUnauthenticated)),
		clusterBinding("system:node-proxier", userSubject(user.KubeProxy)),
		clusterBinding("system:kube-controller-manager", userSubject(user.KubeControllerManager)),
		clusterBinding("system:kube-dns", serviceAccountSubject("kube-system", "kube-dns")),
		clusterBinding("system:kube-scheduler", userSubject(user.KubeScheduler)),
		clusterBinding("system:volume-scheduler", userSubject(user.KubeScheduler)),
		// Kept without subjects since the Node authorizer took over, so that
		// reconciliation does not bring the group back.
		clusterBinding("system:node"),
		clusterBinding("system:service-account-issuer-discovery", groupSubject("system:serviceaccounts")),
	}
}
