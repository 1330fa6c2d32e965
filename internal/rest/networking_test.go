package rest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStripV1beta1Selector(t *testing.T) {
	marker := metav1.LabelSelectorRequirement{Key: pdbV1beta1Label, Operator: metav1.LabelSelectorOpExists}
	other := metav1.LabelSelectorRequirement{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}
	tests := []struct {
		name    string
		in, out *metav1.LabelSelector
	}{
		{"marker among others goes", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}, MatchExpressions: []metav1.LabelSelectorRequirement{marker, other}},
			&metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}, MatchExpressions: []metav1.LabelSelectorRequirement{other}}},
		{"marker alone with labels goes", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}, MatchExpressions: []metav1.LabelSelectorRequirement{marker}},
			&metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}},
		{"the match-nothing selector stays", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{marker}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{marker}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stripV1beta1Selector(tt.in)
			if diff := cmp.Diff(tt.out, tt.in); diff != "" {
				t.Errorf("selector (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCarryTopology(t *testing.T) {
	withTopology := func(node string) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}, DeprecatedTopology: map[string]string{"kubernetes.io/hostname": node}}
	}
	created := &discoveryv1.EndpointSlice{Endpoints: []discoveryv1.Endpoint{withTopology("n1")}}
	carryTopology(created, nil)
	if e := created.Endpoints[0]; e.DeprecatedTopology != nil || e.NodeName != nil {
		t.Errorf("a new slice keeps %v, node %v", e.DeprecatedTopology, e.NodeName)
	}

	old := &discoveryv1.EndpointSlice{Endpoints: []discoveryv1.Endpoint{withTopology("n1")}}
	updated := &discoveryv1.EndpointSlice{Endpoints: []discoveryv1.Endpoint{withTopology("n1"), withTopology("n2")}}
	carryTopology(updated, old)
	var nodes []string
	for _, e := range updated.Endpoints {
		if e.DeprecatedTopology != nil {
			t.Errorf("topology kept: %v", e.DeprecatedTopology)
		}
		if e.NodeName != nil {
			nodes = append(nodes, *e.NodeName)
		}
	}
	// Only a node the stored slice already named becomes a node name.
	if diff := cmp.Diff([]string{"n1"}, nodes); diff != "" {
		t.Errorf("node names (-want +got):\n%s", diff)
	}
}
