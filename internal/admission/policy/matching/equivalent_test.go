package matching

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
)

// threeVersions lists gadgets' versions in its CRD's order, which is not
// kube-apiserver's ranking of them (v2, v1, v1alpha1).
type threeVersions struct{}

func (threeVersions) For(gvr schema.GroupVersionResource, sub string) []admission.Equivalent {
	var out []admission.Equivalent
	for _, v := range []string{"v1alpha1", "v1", "v2"} {
		out = append(out, admission.Equivalent{
			Resource: schema.GroupVersionResource{Group: gvr.Group, Version: v, Resource: gvr.Resource},
			Kind:     schema.GroupVersionKind{Group: gvr.Group, Version: v, Kind: "Gadget"},
		})
	}
	return out
}

func (threeVersions) Convert(context.Context, runtime.Object, schema.GroupVersionKind) (runtime.Object, error) {
	panic("matching converts nothing")
}

func TestMatchEquivalent(t *testing.T) {
	create := []string{"CREATE"}
	group := []string{"example.com"}
	everything := &metav1.LabelSelector{}
	equivalent, exact := admissionregistrationv1.Equivalent, admissionregistrationv1.Exact
	criteria := func(policy *admissionregistrationv1.MatchPolicyType, rules []admissionregistrationv1.NamedRuleWithOperations, exclude ...admissionregistrationv1.NamedRuleWithOperations) *Criteria {
		mr := matchResources(rules, everything, everything)
		mr.ExcludeResourceRules, mr.MatchPolicy = exclude, policy
		return CompilePolicy(mr)
	}
	v1Rule := rule(create, group, []string{"v1"}, []string{"widgets"}, "")
	widgets := &policytest.Widgets{}
	widgetAt := func(version, sub, name string) *admission.Attributes {
		a := attrs(admission.Create, "example.com", version, "widgets", sub, "default", name)
		a.Kind, a.Equivalents = policytest.WidgetGVK(version), widgets
		if sub == "scale" {
			a.Kind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")
		}
		return a
	}
	gadgetAt := func(version string) *admission.Attributes {
		a := attrs(admission.Create, "example.com", version, "gadgets", "", "default", "g")
		a.Kind, a.Equivalents = schema.GroupVersionKind{Group: "example.com", Version: version, Kind: "Gadget"}, threeVersions{}
		return a
	}
	tests := []struct {
		name     string
		criteria *Criteria
		a        *admission.Attributes
		want     bool
		as       string // the version matched as
		asKind   string
	}{
		{name: "own version", criteria: criteria(&equivalent, rules(v1Rule)), a: widgetAt("v1", "", "w"), want: true, as: "v1", asKind: "Widget"},
		{name: "other version, Equivalent", criteria: criteria(&equivalent, rules(v1Rule)), a: widgetAt("v2", "", "w"), want: true, as: "v1", asKind: "Widget"},
		{name: "other version, Exact", criteria: criteria(&exact, rules(v1Rule)), a: widgetAt("v2", "", "w"), want: false},
		{name: "other version, unset is Exact", criteria: criteria(nil, rules(v1Rule)), a: widgetAt("v2", "", "w"), want: false},
		{name: "no equivalents", criteria: criteria(&equivalent, rules(v1Rule)), a: func() *admission.Attributes {
			a := widgetAt("v2", "", "w")
			a.Equivalents = nil
			return a
		}(), want: false},
		{name: "scale of another version is a Scale", criteria: criteria(&equivalent, rules(rule(create, group, []string{"v1"}, []string{"widgets/scale"}, ""))),
			a: widgetAt("v2", "scale", "w"), want: true, as: "v1", asKind: "Scale"},
		{name: "main resource rule skips scale", criteria: criteria(&equivalent, rules(v1Rule)), a: widgetAt("v2", "scale", "w"), want: false},
		{name: "exclusion of another version", criteria: criteria(&equivalent, rules(rule(create, group, []string{"*"}, []string{"widgets"}, "")), v1Rule),
			a: widgetAt("v2", "", "w"), want: false},
		{name: "exclusion of another version, Exact", criteria: criteria(&exact, rules(rule(create, group, []string{"*"}, []string{"widgets"}, "")), v1Rule),
			a: widgetAt("v2", "", "w"), want: true, as: "v2", asKind: "Widget"},
		// kube-apiserver's matcher checks resource names only on the
		// request's own resource.
		{name: "names not checked through equivalents", criteria: criteria(&equivalent, rules(rule(create, group, []string{"v1"}, []string{"widgets"}, "", "other"))),
			a: widgetAt("v2", "", "w"), want: true, as: "v1", asKind: "Widget"},
		{name: "names checked on the own version", criteria: criteria(&equivalent, rules(rule(create, group, []string{"v2"}, []string{"widgets"}, "", "other"))),
			a: widgetAt("v2", "", "w"), want: false},
		{name: "equivalents in the CRD's order", criteria: criteria(&equivalent, rules(rule(create, group, []string{"v2", "v1alpha1"}, []string{"gadgets"}, ""))),
			a: gadgetAt("v1"), want: true, as: "v1alpha1", asKind: "Gadget"},
		{name: "earlier rules first", criteria: criteria(&equivalent, rules(rule(create, group, []string{"v2"}, []string{"gadgets"}, ""), rule(create, group, []string{"v1alpha1"}, []string{"gadgets"}, ""))),
			a: gadgetAt("v1"), want: true, as: "v2", asKind: "Gadget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, ok, err := tc.criteria.MatchAs(NewRequest(context.Background(), tc.a, nil))
			if err != nil || ok != tc.want {
				t.Fatalf("MatchAs = %v, %v; want %v", ok, err, tc.want)
			}
			if !ok {
				return
			}
			if m.Resource.Version != tc.as || m.Kind.Kind != tc.asKind || m.Resource.Resource != tc.a.Resource.Resource {
				t.Errorf("matched as %v %v, want version %s kind %s", m.Resource, m.Kind, tc.as, tc.asKind)
			}
			if ok, _ := tc.criteria.Matches(NewRequest(context.Background(), tc.a, nil)); !ok {
				t.Error("Matches disagrees with MatchAs")
			}
		})
	}
}

func rules(r ...admissionregistrationv1.NamedRuleWithOperations) []admissionregistrationv1.NamedRuleWithOperations {
	return r
}
