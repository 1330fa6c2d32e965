package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

const (
	kubeSystem = "kube-system"
	kubePublic = "kube-public"
)

func namespacedRole(namespace, name string, rs ...*ruleBuilder) rbacv1.Role {
	return rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules(rs...)}
}

func roleBinding(namespace, name, roleName string, subjects ...rbacv1.Subject) rbacv1.RoleBinding {
	return rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: groupRBAC, Kind: "Role", Name: roleName},
		Subjects:   subjects,
	}
}

// leaderLocking is what a component needs to elect a leader with leases.
func leaderLocking(name string) rbacv1.Role {
	return namespacedRole(kubeSystem, "system::leader-locking-"+name,
		verbs("watch", "get", "list", "create", "update").groups(groupCoordination).resources("leases"),
		verbs("watch", "get", "list", "create", "update").groups(groupCoordination).resources("leasecandidates"),
	)
}

func namespaceRoles() []rbacv1.Role {
	return []rbacv1.Role{
		// kube-public's cluster-info config map is signed with bootstrap
		// tokens, for nodes that join with one.
		namespacedRole(kubePublic, controllerPrefix+"bootstrap-signer",
			verbs(readVerbs...).groups(groupCore).resources("configmaps"),
			verbs("update").groups(groupCore).resources("configmaps").names("cluster-info"),
			eventsRule(),
		),
		// Extension API servers read the front proxy's client CA from here.
		namespacedRole(kubeSystem, "extension-apiserver-authentication-reader",
			verbs(readVerbs...).groups(groupCore).resources("configmaps").names("extension-apiserver-authentication"),
		),
		leaderLocking("kube-controller-manager"),
		leaderLocking("kube-scheduler"),
		namespacedRole(kubeSystem, controllerPrefix+"bootstrap-signer",
			verbs(readVerbs...).groups(groupCore).resources("secrets"),
		),
		namespacedRole(kubeSystem, controllerPrefix+"cloud-provider",
			verbs("create", "get", "list", "watch").groups(groupCore).resources("configmaps"),
		),
		namespacedRole(kubeSystem, controllerPrefix+"token-cleaner",
			verbs("delete", "get", "list", "watch").groups(groupCore).resources("secrets"),
			eventsRule(),
		),
	}
}

func namespaceRoleBindings() []rbacv1.RoleBinding {
	return []rbacv1.RoleBinding{
		roleBinding(kubePublic, controllerPrefix+"bootstrap-signer", controllerPrefix+"bootstrap-signer",
			serviceAccountSubject(kubeSystem, "bootstrap-signer")),
		roleBinding(kubeSystem, "system::extension-apiserver-authentication-reader", "extension-apiserver-authentication-reader",
			userSubject(user.KubeControllerManager), userSubject(user.KubeScheduler)),
		roleBinding(kubeSystem, "system::leader-locking-kube-controller-manager", "system::leader-locking-kube-controller-manager",
			userSubject(user.KubeControllerManager),
			serviceAccountSubject(kubeSystem, "kube-controller-manager"),
			serviceAccountSubject(kubeSystem, "leader-election-controller")),
		roleBinding(kubeSystem, "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler",
			userSubject(user.KubeScheduler), serviceAccountSubject(kubeSystem, "kube-scheduler")),
		roleBinding(kubeSystem, controllerPrefix+"bootstrap-signer", controllerPrefix+"bootstrap-signer",
			serviceAccountSubject(kubeSystem, "bootstrap-signer")),
		roleBinding(kubeSystem, controllerPrefix+"cloud-provider", controllerPrefix+"cloud-provider",
			serviceAccountSubject(kubeSystem, "cloud-provider")),
		roleBinding(kubeSystem, controllerPrefix+"token-cleaner", controllerPrefix+"token-cleaner",
			serviceAccountSubject(kubeSystem, "token-cleaner")),
	}
}
