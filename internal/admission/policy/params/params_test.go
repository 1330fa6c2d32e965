package params

import (
	"context"
	"errors"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type store struct {
	objs []*corev1.ConfigMap
	err  error
}

func (s *store) Namespaced(schema.GroupVersionKind) (bool, error) { return true, nil }

func (s *store) Get(_ context.Context, _ schema.GroupVersionKind, ns, name string) (runtime.Object, error) {
	if s.err != nil {
		return nil, s.err
	}
	for _, o := range s.objs {
		if o.Namespace == ns && o.Name == name {
			return o, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (s *store) List(_ context.Context, _ schema.GroupVersionKind, ns string, sel labels.Selector) ([]runtime.Object, error) {
	var out []runtime.Object
	// Reverse order: Collect sorts.
	for i := len(s.objs) - 1; i >= 0; i-- {
		o := s.objs[i]
		if (ns == "" || o.Namespace == ns) && sel.Matches(labels.Set(o.Labels)) {
			out = append(out, o)
		}
	}
	return out, nil
}

func cm(ns, name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

func names(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		if o == nil {
			out = append(out, "<nil>")
			continue
		}
		c := o.(*corev1.ConfigMap)
		out = append(out, c.Namespace+"/"+c.Name)
	}
	return out
}

func TestCollect(t *testing.T) {
	s := &store{objs: []*corev1.ConfigMap{
		cm("a", "one", map[string]string{"p": "x"}),
		cm("a", "two", map[string]string{"p": "x"}),
		cm("b", "one", map[string]string{"p": "y"}),
	}}
	kind := &schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	deny, allow := admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction
	sel := func(v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"p": v}}
	}
	tests := []struct {
		name       string
		kind       *schema.GroupVersionKind
		namespaced bool
		ref        *admissionregistrationv1.ParamRef
		reqNS      string
		want       []string
		err        error
		errText    string
	}{
		{name: "no paramKind", ref: &admissionregistrationv1.ParamRef{Name: "one"}, want: []string{"<nil>"}},
		{name: "no paramRef", kind: kind, namespaced: true, want: []string{"<nil>"}},
		{name: "by name in request namespace", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "one"}, reqNS: "b", want: []string{"b/one"}},
		{name: "by name in given namespace", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "one", Namespace: "a"}, reqNS: "b", want: []string{"a/one"}},
		{name: "by selector", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Selector: sel("x")}, reqNS: "a", want: []string{"a/one", "a/two"}},
		{name: "everything", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, Namespace: "a"}, reqNS: "b", want: []string{"a/one", "a/two"}},
		{name: "cluster-scoped kind lists everywhere", kind: kind, ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}}, reqNS: "b", want: []string{"a/one", "a/two", "b/one"}},
		{name: "not found, allowed", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &allow}, reqNS: "a"},
		{name: "not found, unset action", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "nope"}, reqNS: "a"},
		{name: "not found, denied", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &deny}, reqNS: "a", err: ErrNotFoundDeny,
			errText: "no params found for policy binding with `Deny` parameterNotFoundAction"},
		{name: "none selected, denied", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Selector: sel("z"), ParameterNotFoundAction: &deny}, reqNS: "a", err: ErrNotFoundDeny},
		{name: "none selected, allowed", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Selector: sel("z"), ParameterNotFoundAction: &allow}, reqNS: "a"},
		{name: "namespaced kind, cluster request", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "one"}, err: ErrNamespacedParamForClusterRequest,
			errText: "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"},
		{name: "namespace for cluster kind", kind: kind, ref: &admissionregistrationv1.ParamRef{Name: "one", Namespace: "a"}, err: ErrNamespaceForClusterParam,
			errText: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"},
		{name: "name and selector", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Name: "one", Selector: sel("x")}, reqNS: "a", err: ErrNameAndSelector},
		{name: "neither", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{}, reqNS: "a", err: ErrNoNameOrSelector},
		{name: "bad selector", kind: kind, namespaced: true, ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Nope"}}}}, reqNS: "a",
			errText: `"Nope" is not a valid label selector operator`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Collect(context.Background(), s, tc.kind, tc.namespaced, CompileRef(tc.ref), tc.reqNS)
			if tc.err != nil || tc.errText != "" {
				if err == nil || (tc.err != nil && !errors.Is(err, tc.err)) || (tc.errText != "" && err.Error() != tc.errText) {
					t.Fatalf("err = %v, want %v %q", err, tc.err, tc.errText)
				}
				return
			}
			if err != nil || !slices.Equal(names(got), tc.want) {
				t.Fatalf("got %v, %v; want %v", names(got), err, tc.want)
			}
		})
	}
	t.Run("store error", func(t *testing.T) {
		failing := &store{err: errors.New("etcd down")}
		_, err := Collect(context.Background(), failing, kind, true, CompileRef(&admissionregistrationv1.ParamRef{Name: "x"}), "a")
		if err == nil || err.Error() != "etcd down" {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestKind(t *testing.T) {
	k, err := Kind(&admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Limits"})
	if err != nil || k != (schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Limits"}) {
		t.Fatalf("%v %v", k, err)
	}
	if _, err := Kind(&admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "X"}); err == nil {
		t.Fatal("bad apiVersion parsed")
	}
	if got := UnresolvedKindError(k).Error(); got != "failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'" {
		t.Fatal(got)
	}
}
