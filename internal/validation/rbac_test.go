package validation

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestRBACCreate(t *testing.T) {
	readPods := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	user := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"valid role", &rbacv1.Role{ObjectMeta: omNS("r", "ns"), Rules: []rbacv1.PolicyRule{readPods}}, nil},
		{"role names may hold colons", &rbacv1.ClusterRole{ObjectMeta: om("system:auth-delegator")}, nil},
		{"role name may not contain a slash", &rbacv1.ClusterRole{ObjectMeta: om("a/b")},
			[]string{`metadata.name: Invalid value: "a/b": may not contain '/'`}},
		{"role name may not be ..", &rbacv1.Role{ObjectMeta: omNS("..", "ns")},
			[]string{`metadata.name: Invalid value: "..": may not be '..'`}},
		{"role needs a namespace", &rbacv1.Role{ObjectMeta: om("r")},
			[]string{`metadata.namespace: Required value`}},
		{"cluster role takes no namespace", &rbacv1.ClusterRole{ObjectMeta: omNS("r", "ns")},
			[]string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{"missing name", &rbacv1.ClusterRole{},
			[]string{`metadata.name: Required value: name or generateName is required`}},
		{"rule without verbs", &rbacv1.Role{ObjectMeta: omNS("r", "ns"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}},
			[]string{`rules[0].verbs: Required value`}},
		{"resource rule without groups or resources", &rbacv1.Role{ObjectMeta: omNS("r", "ns"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}},
			[]string{
				`rules[0].apiGroups: Required value: resource rules must supply at least one api group`,
				`rules[0].resources: Required value: resource rules must supply at least one resource`,
			}},
		{"resource names over several resources", &rbacv1.ClusterRole{ObjectMeta: om("r"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods", "secrets"}, ResourceNames: []string{"x"}}}},
			[]string{`rules[0].resourceNames: Required value: resource names cannot apply to multiple resources`}},
		{"namespaced role with non-resource URLs", &rbacv1.Role{ObjectMeta: omNS("r", "ns"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}},
			[]string{`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs`}},
		{"cluster role with non-resource URLs", &rbacv1.ClusterRole{ObjectMeta: om("r"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/api/*"}}}}, nil},
		{"mixed resources and URLs", &rbacv1.ClusterRole{ObjectMeta: om("r"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, NonResourceURLs: []string{"/healthz"}}}},
			[]string{`rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs`}},
		{"aggregation rule with no selectors", &rbacv1.ClusterRole{ObjectMeta: om("r"), AggregationRule: &rbacv1.AggregationRule{}},
			[]string{`aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`}},
		{"aggregation rule with a bad selector", &rbacv1.ClusterRole{ObjectMeta: om("r"), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a b": "x"}}}}},
			[]string{
				`aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.`,
			}},
		{"valid role binding", &rbacv1.RoleBinding{ObjectMeta: omNS("b", "ns"), RoleRef: roleRef, Subjects: []rbacv1.Subject{user, {Kind: "ServiceAccount", Name: "default", Namespace: "ns"}}}, nil},
		{"role binding to a Role", &rbacv1.RoleBinding{ObjectMeta: omNS("b", "ns"), RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}}, nil},
		{"bad roleRef", &rbacv1.RoleBinding{ObjectMeta: omNS("b", "ns"), RoleRef: rbacv1.RoleRef{APIGroup: "x", Kind: "Foo"}},
			[]string{
				`roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"`,
				`roleRef.kind: Unsupported value: "Foo": supported values: "Role", "ClusterRole"`,
				`roleRef.name: Required value`,
			}},
		{"cluster binding to a Role", &rbacv1.ClusterRoleBinding{ObjectMeta: om("b"), RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r/x"}},
			[]string{
				`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
				`roleRef.name: Invalid value: "r/x": may not contain '/'`,
			}},
		{"subject kinds and groups", &rbacv1.RoleBinding{ObjectMeta: omNS("b", "ns"), RoleRef: roleRef, Subjects: []rbacv1.Subject{
			{Kind: "User", Name: "bob"},
			{Kind: "Group", APIGroup: "x", Name: "devs"},
			{Kind: "ServiceAccount", APIGroup: rbacv1.GroupName, Name: "Bad_Name"},
			{Kind: "Robot", Name: "r2"},
			{Kind: "User"},
		}}, []string{
			`subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"`,
			`subjects[1].apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"`,
			`subjects[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`subjects[2].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""`,
			`subjects[3].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
			`subjects[4].name: Required value`,
			`subjects[4].name: Invalid value: "": user name cannot be empty`,
			`subjects[4].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"`,
		}},
		{"cluster binding service account needs a namespace", &rbacv1.ClusterRoleBinding{ObjectMeta: om("b"), RoleRef: roleRef, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa"}}},
			[]string{`subjects[0].namespace: Required value`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(tc.obj), tc.want)
		})
	}
}

func TestRBACUpdate(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "b", Namespace: "ns", ResourceVersion: "1"}
	old := &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}
	tests := []struct {
		name   string
		mutate func(*rbacv1.RoleBinding)
		want   []string
	}{
		{"subjects may change", func(b *rbacv1.RoleBinding) {
			b.Subjects = []rbacv1.Subject{{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "g"}}
		}, nil},
		{"roleRef may not change", func(b *rbacv1.RoleBinding) { b.RoleRef.Name = "edit" },
			[]string{`roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: field is immutable`}},
		{"name may not change", func(b *rbacv1.RoleBinding) { b.Name = "c" },
			[]string{`metadata.name: Invalid value: "c": field is immutable`}},
		{"resourceVersion is required", func(b *rbacv1.RoleBinding) { b.ResourceVersion = "" },
			[]string{`metadata.resourceVersion: Invalid value: "": must be specified for an update`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := old.DeepCopy()
			tc.mutate(b)
			expectErrors(t, Update(b, old), tc.want)
		})
	}
}
