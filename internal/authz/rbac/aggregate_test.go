package rbac

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func labelledRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	r := cr(name, rules...)
	r.Labels = labels
	return r
}

func aggregatedBy(name string, selectors ...metav1.LabelSelector) *rbacv1.ClusterRole {
	r := cr(name)
	r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: selectors}
	return r
}

func TestAggregatedRules(t *testing.T) {
	listPods := pr(l("list"), l(""), l("pods"))
	getNodes := pr(l("get"), l(""), l("nodes"))
	viewLabel := map[string]string{"agg/view": "true"}
	editLabel := map[string]string{"agg/edit": "true"}
	selView := metav1.LabelSelector{MatchLabels: map[string]string{"agg/view": "true"}}
	selEdit := metav1.LabelSelector{MatchLabels: map[string]string{"agg/edit": "true"}}

	all := []*rbacv1.ClusterRole{
		labelledRole("z-view", viewLabel, getNodes, getPods),
		labelledRole("a-view", viewLabel, getPods, listPods),
		labelledRole("b-edit", editLabel, getSecrets, getPods),
		labelledRole("unlabelled", nil, allOnAll),
	}

	tests := []struct {
		name string
		role *rbacv1.ClusterRole
		want []rbacv1.PolicyRule
	}{
		{"roles in name order, each rule once", aggregatedBy("view", selView),
			[]rbacv1.PolicyRule{getPods, listPods, getNodes}},
		{"selectors in order", aggregatedBy("edit", selEdit, selView),
			[]rbacv1.PolicyRule{getSecrets, getPods, listPods, getNodes}},
		{"nothing selected is an empty list", aggregatedBy("none", metav1.LabelSelector{MatchLabels: map[string]string{"no": "match"}}),
			[]rbacv1.PolicyRule{}},
		{"expressions", aggregatedBy("expr", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "agg/edit", Operator: metav1.LabelSelectorOpExists}}}),
			[]rbacv1.PolicyRule{getSecrets, getPods}},
		{"not aggregated keeps its rules", cr("plain", getSecrets), []rbacv1.PolicyRule{getSecrets}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AggregatedRules(tt.role, all)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got == nil {
				t.Error("nil rules")
			}
		})
	}

	t.Run("the role itself is skipped", func(t *testing.T) {
		self := aggregatedBy("self", selView)
		self.Labels = viewLabel
		self.Rules = []rbacv1.PolicyRule{allOnAll}
		got, _ := AggregatedRules(self, append(all, self))
		if diff := cmp.Diff([]rbacv1.PolicyRule{getPods, listPods, getNodes}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("invalid selector", func(t *testing.T) {
		bad := aggregatedBy("bad", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Sometimes"}}})
		if _, err := AggregatedRules(bad, all); err == nil {
			t.Error("no error")
		}
	})
	t.Run("result does not share memory with the sources", func(t *testing.T) {
		got, _ := AggregatedRules(aggregatedBy("view", selView), all)
		got[0].Verbs[0] = "changed"
		if all[1].Rules[0].Verbs[0] != "get" {
			t.Error("source changed")
		}
	})
}

// TestBootstrapAggregation checks the default admin, edit and view roles
// as the aggregation controller fills them in.
func TestBootstrapAggregation(t *testing.T) {
	p := Bootstrap()
	var all []*rbacv1.ClusterRole
	byName := map[string]*rbacv1.ClusterRole{}
	for i := range p.ClusterRoles {
		all = append(all, &p.ClusterRoles[i])
		byName[p.ClusterRoles[i].Name] = &p.ClusterRoles[i]
	}
	view, _ := AggregatedRules(byName["view"], all)
	edit, _ := AggregatedRules(byName["edit"], all)
	admin, _ := AggregatedRules(byName["admin"], all)
	// edit gathers system:aggregate-to-edit and, through view's label, only
	// roles labelled aggregate-to-edit: view's own rules arrive once the
	// controller has filled view in.
	if ok, missing := covers(edit, byName["system:aggregate-to-edit"].Rules); !ok {
		t.Errorf("edit lacks %v", missing)
	}
	if ok, _ := covers(view, []rbacv1.PolicyRule{getSecrets}); ok {
		t.Error("view can read secrets")
	}
	byName["view"].Rules = view
	edit, _ = AggregatedRules(byName["edit"], all)
	byName["edit"].Rules = edit
	admin, _ = AggregatedRules(byName["admin"], all)
	if ok, missing := covers(admin, append(append([]rbacv1.PolicyRule{}, view...), edit...)); !ok {
		t.Errorf("admin lacks %v", missing)
	}
	if ok, _ := covers(admin, []rbacv1.PolicyRule{pr(l("create"), l("rbac.authorization.k8s.io"), l("rolebindings"))}); !ok {
		t.Error("admin cannot create role bindings")
	}
	if ok, _ := covers(edit, []rbacv1.PolicyRule{pr(l("create"), l("rbac.authorization.k8s.io"), l("rolebindings"))}); ok {
		t.Error("edit can create role bindings")
	}
}
