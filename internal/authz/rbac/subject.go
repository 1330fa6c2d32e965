package rbac

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
)

// serviceAccountPrefix starts the user name of every service account:
// system:serviceaccount:<namespace>:<name>.
const serviceAccountPrefix = "system:serviceaccount:"

// subjectKey is an index key: who a binding names, and for RoleBindings in
// which namespace. Service accounts are indexed under their user name, so a
// decision needs one lookup for the user and one per group.
type subjectKey struct {
	namespace string // "" for ClusterRoleBindings
	group     bool
	name      string
}

// principal is one subject of a binding resolved to what a request is
// compared with: a user name or a group name. ok is false for subjects that
// can never match (a namespace-less service account in a
// ClusterRoleBinding, an unknown kind).
type principal struct {
	group bool
	name  string
	ok    bool
}

// resolveSubject mirrors kube-apiserver's subject matching. A service
// account without a namespace means the binding's own namespace, and in a
// ClusterRoleBinding (bindingNamespace "") it matches nobody.
func resolveSubject(s *rbacv1.Subject, bindingNamespace string) principal {
	switch s.Kind {
	case rbacv1.UserKind:
		return principal{name: s.Name, ok: true}
	case rbacv1.GroupKind:
		return principal{group: true, name: s.Name, ok: true}
	case rbacv1.ServiceAccountKind:
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		if ns == "" {
			return principal{}
		}
		return principal{name: serviceAccountPrefix + ns + ":" + s.Name, ok: true}
	default:
		return principal{}
	}
}

func (p principal) matches(userName string, groups []string) bool {
	if !p.ok {
		return false
	}
	if p.group {
		return has(groups, p.name)
	}
	return p.name == userName
}

// describeSubject is how kube-apiserver names a subject in a reason.
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// allowReason is the reason kube-apiserver gives when a binding allows a
// request through one of its subjects, for example
// `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "bob"`
// or `RBAC: allowed by RoleBinding "x/ns" of Role "y" to Group "devs"`.
func allowReason(namespace, name string, ref rbacv1.RoleRef, s *rbacv1.Subject) string {
	if namespace == "" {
		return fmt.Sprintf("RBAC: allowed by ClusterRoleBinding %q of %s %q to %s",
			name, ref.Kind, ref.Name, describeSubject(s, ""))
	}
	return fmt.Sprintf("RBAC: allowed by RoleBinding %q of %s %q to %s",
		name+"/"+namespace, ref.Kind, ref.Name, describeSubject(s, namespace))
}
