package defaults

import rbacv1 "k8s.io/api/rbac/v1"

func roleBinding(b *rbacv1.RoleBinding) {
	if b.RoleRef.APIGroup == "" {
		b.RoleRef.APIGroup = rbacv1.GroupName
	}
	subjects(b.Subjects)
}

func clusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	if b.RoleRef.APIGroup == "" {
		b.RoleRef.APIGroup = rbacv1.GroupName
	}
	subjects(b.Subjects)
}

// subjects puts users and groups in the RBAC group; service accounts stay
// in the core group ("").
func subjects(list []rbacv1.Subject) {
	for i := range list {
		s := &list[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
