package printers

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rbacPrinters covers rbac.authorization.k8s.io/v1. Roles and cluster roles
// have no printer in kube-apiserver and get the default table.
func rbacPrinters() []registration {
	return []registration{
		cellsPrinter(bindingColumns("role binding"), func(b *rbacv1.RoleBinding, now time.Time) []any {
			return bindingCells(b.ObjectMeta, b.RoleRef, b.Subjects, now)
		}),
		cellsPrinter(bindingColumns("cluster role binding"), func(b *rbacv1.ClusterRoleBinding, now time.Time) []any {
			return bindingCells(b.ObjectMeta, b.RoleRef, b.Subjects, now)
		}),
	}
}

func bindingColumns(what string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Role", "string", rbacv1.RoleBinding{}.SwaggerDoc()["roleRef"]),
		ageColumn(),
		wideColumn("Users", "string", "Users in the "+what+"."),
		wideColumn("Groups", "string", "Groups in the "+what+"."),
		wideColumn("ServiceAccounts", "string", "Service accounts in the "+what+"."),
	}
}

func bindingCells(m metav1.ObjectMeta, ref rbacv1.RoleRef, subjects []rbacv1.Subject, now time.Time) []any {
	var users, groups, sas []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		case rbacv1.ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		}
	}
	return []any{
		m.Name, ref.Kind + "/" + ref.Name, since(m.CreationTimestamp, now),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", "),
	}
}
