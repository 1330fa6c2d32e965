package matching

import (
	"context"
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func namespaces(lbls map[string]map[string]string) NamespaceGetter {
	return func(_ context.Context, name string) (*corev1.Namespace, error) {
		l, ok := lbls[name]
		if !ok {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
		}
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}, nil
	}
}

func matchResources(rules []admissionregistrationv1.NamedRuleWithOperations, ns, obj *metav1.LabelSelector) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: rules, NamespaceSelector: ns, ObjectSelector: obj}
}

func labelled(lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: lbls}}
}

func TestCriteriaMatches(t *testing.T) {
	all := []string{"*"}
	pods := []admissionregistrationv1.NamedRuleWithOperations{rule(all, []string{""}, all, []string{"pods"}, "")}
	everything := &metav1.LabelSelector{}
	prod := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	notSystem := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}}
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Bogus"}}}
	nss := namespaces(map[string]map[string]string{
		"prod":        {"env": "prod"},
		"dev":         {"env": "dev"},
		"kube-system": {"kubernetes.io/metadata.name": "kube-system"},
	})
	podIn := func(ns string, lbls map[string]string) *admission.Attributes {
		a := attrs(admission.Create, "", "v1", "pods", "", ns, "p")
		a.Object = labelled(lbls)
		return a
	}
	nsWrite := func(op admission.Operation, name string, lbls, old map[string]string) *admission.Attributes {
		a := attrs(op, "", "v1", "namespaces", "", "", name)
		if lbls != nil {
			a.Object = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
		}
		if old != nil {
			a.OldObject = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: old}}
		}
		return a
	}

	tests := []struct {
		name    string
		mr      *admissionregistrationv1.MatchResources
		binding bool
		a       *admission.Attributes
		want    bool
		wantErr string
	}{
		{"rules match", matchResources(pods, everything, everything), false, podIn("dev", nil), true, ""},
		{"rules do not match", matchResources(pods, everything, everything), false, attrs(admission.Create, "", "v1", "secrets", "", "dev", "s"), false, ""},
		{"no rules match everything", matchResources(nil, everything, everything), false, attrs(admission.Create, "apps", "v1", "deployments", "", "dev", "d"), true, ""},
		{"namespace selector matches", matchResources(pods, prod, everything), false, podIn("prod", nil), true, ""},
		{"namespace selector does not match", matchResources(pods, prod, everything), false, podIn("dev", nil), false, ""},
		{"NotIn kube-system", matchResources(pods, notSystem, everything), false, podIn("kube-system", nil), false, ""},
		{"NotIn kube-system elsewhere", matchResources(pods, notSystem, everything), false, podIn("dev", nil), true, ""},
		{"cluster-scoped ignores namespace selector", matchResources(nil, prod, everything), false, attrs(admission.Create, "", "v1", "nodes", "", "", "n"), true, ""},
		{"namespace create uses its labels", matchResources(nil, prod, everything), false, nsWrite(admission.Create, "new", map[string]string{"env": "prod"}, nil), true, ""},
		{"namespace update uses new labels", matchResources(nil, prod, everything), false, nsWrite(admission.Update, "prod", map[string]string{"env": "dev"}, map[string]string{"env": "prod"}), false, ""},
		{"namespace delete uses stored labels", matchResources(nil, prod, everything), false, nsWrite(admission.Delete, "prod", nil, map[string]string{}), true, ""},
		{"missing namespace is an error when rules match", matchResources(pods, prod, everything), false, podIn("gone", nil), false, `namespaces "gone" not found`},
		{"missing namespace is no error when rules do not match", matchResources(pods, prod, everything), false, func() *admission.Attributes {
			a := podIn("gone", nil)
			a.Resource.Resource = "secrets"
			return a
		}(), false, ""},
		{"empty namespace selector needs no namespace", matchResources(pods, everything, everything), false, podIn("gone", nil), true, ""},
		{"object selector on object", matchResources(pods, everything, prod), false, podIn("dev", map[string]string{"env": "prod"}), true, ""},
		{"object selector mismatch", matchResources(pods, everything, prod), false, podIn("dev", map[string]string{"env": "dev"}), false, ""},
		{"object selector on old object", matchResources(pods, everything, prod), false, func() *admission.Attributes {
			a := attrs(admission.Delete, "", "v1", "pods", "", "dev", "p")
			a.OldObject = labelled(map[string]string{"env": "prod"})
			return a
		}(), true, ""},
		{"object selector without objects", matchResources(pods, everything, prod), false, attrs(admission.Connect, "", "v1", "pods", "", "dev", "p"), false, ""},
		{"excluded", &admissionregistrationv1.MatchResources{
			ResourceRules: pods, NamespaceSelector: everything, ObjectSelector: everything,
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule(all, all, all, []string{"pods"}, "", "p")},
		}, false, podIn("dev", nil), false, ""},
		{"exclusion of other names", &admissionregistrationv1.MatchResources{
			ResourceRules: pods, NamespaceSelector: everything, ObjectSelector: everything,
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule(all, all, all, []string{"pods"}, "", "q")},
		}, false, podIn("dev", nil), true, ""},
		{"exclusion hides namespace errors", &admissionregistrationv1.MatchResources{
			ResourceRules: pods, NamespaceSelector: prod, ObjectSelector: everything,
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule(all, all, all, []string{"pods"}, "")},
		}, false, podIn("gone", nil), false, ""},
		{"bad namespace selector", matchResources(pods, bad, everything), false, podIn("dev", nil), false, "Internal error occurred: "},
		{"bad object selector", matchResources(pods, everything, bad), false, podIn("dev", nil), false, "Internal error occurred: "},
		{"nil policy constraints", nil, false, podIn("dev", nil), false, ErrNoMatchConstraints.Error()},
		{"nil binding resources", nil, true, podIn("dev", nil), true, ""},
		{"nil namespace selector", matchResources(pods, nil, everything), false, podIn("dev", nil), false, ErrNilNamespaceSelector.Error()},
		{"nil object selector", matchResources(pods, everything, nil), true, podIn("dev", nil), false, ErrNilObjectSelector.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := CompilePolicy(tc.mr)
			if tc.binding {
				c = CompileBinding(tc.mr)
			}
			got, err := c.Matches(NewRequest(context.Background(), tc.a, nss))
			if tc.wantErr != "" {
				if err == nil || len(err.Error()) < len(tc.wantErr) || err.Error()[:len(tc.wantErr)] != tc.wantErr {
					t.Fatalf("err = %v, want prefix %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Matches = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestNamespaceLookedUpOnce(t *testing.T) {
	calls := 0
	get := func(_ context.Context, name string) (*corev1.Namespace, error) {
		calls++
		return nil, errors.New("down")
	}
	a := attrs(admission.Create, "", "v1", "pods", "", "dev", "p")
	r := NewRequest(context.Background(), a, get)
	prod := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	c := CompilePolicy(matchResources(nil, prod, &metav1.LabelSelector{}))
	for range 3 {
		if _, err := c.Matches(r); err == nil || !apierrors.IsInternalError(err) {
			t.Fatalf("err = %v, want an internal error", err)
		}
	}
	if calls != 1 {
		t.Fatalf("namespace read %d times", calls)
	}
}

func TestNilNamespaceGetter(t *testing.T) {
	a := attrs(admission.Create, "", "v1", "pods", "", "dev", "p")
	r := NewRequest(context.Background(), a, nil)
	if _, err := r.Namespace("dev"); !apierrors.IsNotFound(err) {
		t.Fatalf("err = %v", err)
	}
}
