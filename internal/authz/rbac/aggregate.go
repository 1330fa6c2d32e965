package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// AggregatedRules returns the rules an aggregated ClusterRole should hold,
// as kube-controller-manager's clusterrole-aggregation controller computes
// them: for each of the aggregationRule's selectors in turn, the rules of
// every other ClusterRole in all whose labels it selects, those roles taken
// in name order, each rule once (the first time it is seen). The result is
// never nil, so that a role that gathers nothing is written with "rules: []".
//
// A ClusterRole without an aggregationRule keeps its own rules. An invalid
// selector is an error, and the role should be left as it is.
func AggregatedRules(cr *rbacv1.ClusterRole, all []*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	if cr == nil {
		return nil, fmt.Errorf("aggregate %T: %w", cr, ErrUnsupportedObject)
	}
	if cr.AggregationRule == nil {
		return cr.Rules, nil
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })

	rules := []rbacv1.PolicyRule{}
	for i := range cr.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&cr.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, fmt.Errorf("clusterrole %q: aggregationRule.clusterRoleSelectors[%d]: %w", cr.Name, i, err)
		}
		for _, other := range sorted {
			if other == nil || other.Name == cr.Name || !sel.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, r := range other.Rules {
				if !slices.ContainsFunc(rules, func(have rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(have, r) }) {
					rules = append(rules, *r.DeepCopy())
				}
			}
		}
	}
	return rules, nil
}
