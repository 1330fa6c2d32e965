package matching

import (
	"context"
	"fmt"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestIndexLookup(t *testing.T) {
	all := []string{"*"}
	everything := &metav1.LabelSelector{}
	byName := func(ns ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: ns}}}
	}
	entries := []struct {
		name string
		mr   *admissionregistrationv1.MatchResources
		bind bool
	}{
		{"create-pods", matchResources([]admissionregistrationv1.NamedRuleWithOperations{rule([]string{"CREATE"}, []string{""}, all, []string{"pods"}, "")}, everything, everything), false},
		{"any-pods-sub", matchResources([]admissionregistrationv1.NamedRuleWithOperations{rule(all, []string{""}, all, []string{"pods/status"}, "")}, everything, everything), false},
		{"everything", matchResources([]admissionregistrationv1.NamedRuleWithOperations{rule(all, all, all, []string{"*/*"}, "")}, everything, everything), false},
		{"apps", matchResources([]admissionregistrationv1.NamedRuleWithOperations{rule([]string{"UPDATE", "DELETE"}, []string{"apps"}, all, []string{"deployments", "statefulsets"}, "")}, everything, everything), false},
		{"no-rules", matchResources(nil, everything, everything), false},
		{"nil-policy", nil, false},
		{"nil-binding", nil, true},
		{"ns-a-pods", matchResources([]admissionregistrationv1.NamedRuleWithOperations{rule(all, []string{""}, all, []string{"pods"}, "")}, byName("a"), everything), false},
		{"ns-b-c", matchResources(nil, byName("b", "c"), everything), false},
		{"ns-label", matchResources(nil, &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, everything), false},
	}
	x := NewIndex[string]()
	for _, e := range entries {
		c := CompilePolicy(e.mr)
		if e.bind {
			c = CompileBinding(e.mr)
		}
		x.Add(e.name, c)
	}
	nss := namespaces(map[string]map[string]string{
		"a": {"kubernetes.io/metadata.name": "a"},
		"b": {"kubernetes.io/metadata.name": "b", "env": "prod"},
		"d": {"kubernetes.io/metadata.name": "d"},
	})
	tests := []struct {
		a    *admission.Attributes
		want []string
	}{
		{attrs(admission.Create, "", "v1", "pods", "", "d", "p"), []string{"create-pods", "any-pods-sub", "everything", "no-rules", "nil-policy", "nil-binding"}},
		{attrs(admission.Update, "", "v1", "pods", "status", "d", "p"), []string{"any-pods-sub", "everything", "no-rules", "nil-policy", "nil-binding"}},
		{attrs(admission.Delete, "apps", "v1", "deployments", "", "d", "x"), []string{"apps", "everything", "no-rules", "nil-policy", "nil-binding"}},
		{attrs(admission.Create, "apps", "v1", "deployments", "", "d", "x"), []string{"everything", "no-rules", "nil-policy", "nil-binding"}},
		{attrs(admission.Create, "", "v1", "pods", "", "a", "p"), []string{"create-pods", "any-pods-sub", "everything", "no-rules", "nil-policy", "nil-binding", "ns-a-pods"}},
		{attrs(admission.Create, "", "v1", "configmaps", "", "b", "p"), []string{"everything", "no-rules", "nil-policy", "nil-binding", "ns-b-c", "ns-label"}},
		// The namespace cannot be read: every label-filed value is a
		// candidate, so the match can report the error.
		{attrs(admission.Create, "", "v1", "configmaps", "", "gone", "p"), []string{"everything", "no-rules", "nil-policy", "nil-binding", "ns-b-c", "ns-label"}},
		{attrs(admission.Create, "", "v1", "pods", "", "gone", "p"), []string{"create-pods", "any-pods-sub", "everything", "no-rules", "nil-policy", "nil-binding", "ns-a-pods", "ns-b-c", "ns-label"}},
		// Cluster-scoped objects ignore namespace selectors.
		{attrs(admission.Create, "", "v1", "nodes", "", "", "n"), []string{"everything", "no-rules", "nil-policy", "nil-binding", "ns-b-c", "ns-label"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %s/%s %s", tc.a.Operation, tc.a.Resource.Resource, tc.a.Subresource, tc.a.Namespace), func(t *testing.T) {
			got := x.Lookup(nil, NewRequest(context.Background(), tc.a, nss))
			want := slices.Clone(tc.want)
			// Lookups keep insertion order.
			order := func(s string) int {
				return slices.IndexFunc(entries, func(e struct {
					name string
					mr   *admissionregistrationv1.MatchResources
					bind bool
				}) bool {
					return e.name == s
				})
			}
			slices.SortFunc(want, func(a, b string) int { return order(a) - order(b) })
			if !slices.Equal(got, want) {
				t.Fatalf("Lookup = %v, want %v", got, want)
			}
		})
	}
}

// TestIndexAgreesWithMatch checks that every value whose criteria match a
// request is among the index's candidates.
func TestIndexAgreesWithMatch(t *testing.T) {
	ops := []string{"CREATE", "UPDATE", "DELETE", "CONNECT", "*"}
	groups := []string{"", "apps", "*"}
	resources := []string{"pods", "pods/status", "pods/*", "*/status", "*", "*/*", "deployments", "deployments/scale"}
	x := NewIndex[*Criteria]()
	var all []*Criteria
	for i, op := range ops {
		for j, g := range groups {
			for k, res := range resources {
				var sel *metav1.LabelSelector = &metav1.LabelSelector{}
				if (i+j+k)%3 == 0 {
					// Many label names: more buckets than Lookup keeps apart.
					sel = &metav1.LabelSelector{MatchLabels: map[string]string{fmt.Sprintf("team%d", k%5): fmt.Sprint(k % 2)}}
				}
				c := CompilePolicy(matchResources([]admissionregistrationv1.NamedRuleWithOperations{rule([]string{op}, []string{g}, []string{"*"}, []string{res}, "")}, sel, &metav1.LabelSelector{}))
				x.Add(c, c)
				all = append(all, c)
			}
		}
	}
	nss := namespaces(map[string]map[string]string{
		"t0": {"team0": "0", "team1": "0", "team2": "0", "team3": "0", "team4": "0"},
		"t1": {"team0": "1", "team1": "1", "team2": "1", "team3": "1", "team4": "1"},
	})
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect} {
		for _, g := range []string{"", "apps", "batch"} {
			for _, res := range []string{"pods", "deployments", "jobs"} {
				for _, sub := range []string{"", "status", "scale"} {
					for _, ns := range []string{"t0", "t1", ""} {
						a := attrs(op, g, "v1", res, sub, ns, "n")
						r := NewRequest(context.Background(), a, nss)
						cands := x.Lookup(nil, r)
						for _, c := range all {
							ok, err := c.Matches(r)
							if (ok || err != nil) && !slices.Contains(cands, c) {
								t.Fatalf("%s %s/%s/%s in %q: matching criteria %v not a candidate", op, g, res, sub, ns, c.ruleSpecs)
							}
						}
					}
				}
			}
		}
	}
}
