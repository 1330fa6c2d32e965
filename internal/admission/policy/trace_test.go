package policy

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// tracedPart is what the tests check of a part: its rule, outcome and
// detail, and that it was timed.
type tracedPart struct {
	Rule, Outcome, Detail string
	Timed                 bool
}

// traceParts validates a through a chain of the one plugin v, as the
// server does, and returns the parts of its step.
func traceParts(t *testing.T, v admission.Validator, a *admission.Attributes) []tracedPart {
	t.Helper()
	st := &request.State{Trace: true}
	chain := &admission.Chain{Validators: []admission.Validator{v}, ValidatorNames: []string{PluginName}}
	_ = chain.Validate(request.WithState(context.Background(), st), a)
	steps := st.Steps()
	if len(steps) != 1 {
		t.Fatalf("steps = %+v, want the plugin's only", steps)
	}
	var out []tracedPart
	for _, p := range steps[0].Parts {
		if p.Stage != "" || p.Name != "" || p.Phase != "" {
			t.Errorf("part %+v has a stage, name or phase: its step has them", p)
		}
		out = append(out, tracedPart{Rule: p.Rule, Outcome: p.Outcome, Detail: p.Detail, Timed: p.Micros > 0})
	}
	return out
}

func TestTraceParts(t *testing.T) {
	e := newEnv()
	e.AddNamespace("default", nil)
	e.Add(configMapGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "limits"}, Data: map[string]string{"max": "0"}})
	prod := bindingResources(&admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}})
	warn, audit := admissionregistrationv1.Warn, admissionregistrationv1.Audit
	ignore := failurePolicy(admissionregistrationv1.Ignore)
	tests := []struct {
		name string
		objs []runtime.Object
		want []tracedPart
	}{
		{name: "admitted", objs: []runtime.Object{vap("p", validate("true")), vapb("b", "p")},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "admitted", Timed: true}}},
		{name: "denied", objs: []runtime.Object{vap("p", validate("false")), vapb("b", "p")},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "denied", Detail: "failed expression: false", Timed: true}}},
		{name: "warned", objs: []runtime.Object{vap("p", validate("false")), vapb("b", "p", actions(warn))},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "warned", Detail: "failed expression: false", Timed: true}}},
		{name: "audited", objs: []runtime.Object{vap("p", validate("false")), vapb("b", "p", actions(audit))},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "audited", Detail: "failed expression: false", Timed: true}}},
		{name: "warned and audited", objs: []runtime.Object{vap("p", validate("false")), vapb("b", "p", actions(warn, audit))},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "warned, audited", Detail: "failed expression: false", Timed: true}}},
		{name: "every failure in the detail", objs: []runtime.Object{vap("p", validate("false"), validate("true"), validate("1 == 2")), vapb("b", "p")},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "denied", Detail: "failed expression: false; failed expression: 1 == 2", Timed: true}}},
		{name: "error ignored", objs: []runtime.Object{vap("p", ignore, validate("int(object.metadata.name) == 1")), vapb("b", "p")},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "error (failurePolicy Ignore)", Detail: "expression 'int(object.metadata.name) == 1' resulted in error: type conversion error from 'string' to 'int'", Timed: true}}},
		{name: "failed audit annotation denies", objs: []runtime.Object{vap("p", annotate("k", "string(int(object.metadata.name))")), vapb("b", "p", actions(audit))},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "denied", Detail: "expression 'string(int(object.metadata.name))' resulted in error: type conversion error from 'string' to 'int'", Timed: true}}},
		{name: "audit annotations only", objs: []runtime.Object{vap("p", annotate("k", "'v'")), vapb("b", "p")},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "admitted", Timed: true}}},
		{name: "bindings that do not match leave nothing", objs: []runtime.Object{vap("p", validate("false")), vapb("a", "p", prod), vapb("b", "p", actions(warn)), vapb("c", "p", prod)},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "warned", Detail: "failed expression: false", Timed: true}}},
		{name: "excluded by match conditions", objs: []runtime.Object{vap("p", matchWhen("never", "false"), validate("false")), vapb("b", "p")}},
		{name: "policies in order", objs: []runtime.Object{vap("q", validate("true")), vapb("qb", "q"), vap("p", validate("false")), vapb("pb", "p", actions(warn))},
			want: []tracedPart{
				{Rule: "policy p, binding pb", Outcome: "warned", Detail: "failed expression: false", Timed: true},
				{Rule: "policy q, binding qb", Outcome: "admitted", Timed: true},
			}},
		{name: "param", objs: []runtime.Object{vap("p", paramKind("v1", "ConfigMap"), validate("params.data.max == '1'")), vapb("b", "p", paramRef(admissionregistrationv1.ParamRef{Name: "limits"}))},
			want: []tracedPart{{Rule: "policy p, binding b, param default/limits", Outcome: "denied", Detail: "failed expression: params.data.max == '1'", Timed: true}}},
		{name: "policy configuration error", objs: []runtime.Object{vap("p", paramKind("example.com/v1", "Nope"), validate("true")), vapb("b", "p", paramRef(admissionregistrationv1.ParamRef{Name: "x"}))},
			want: []tracedPart{{Rule: "policy p", Outcome: "denied", Detail: "failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'"}}},
		{name: "binding configuration error ignored", objs: []runtime.Object{vap("p", ignore, paramKind("v1", "ConfigMap"), validate("true")), vapb("b", "p", paramRef(admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: ptrTo(admissionregistrationv1.DenyAction)}))},
			want: []tracedPart{{Rule: "policy p, binding b", Outcome: "error (failurePolicy Ignore)", Detail: "no params found for policy binding with `Deny` parameterNotFoundAction"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := traceParts(t, newPlugin(options(e), tc.objs...), createWeb())
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTracePartsStaticFirst: the static policies' parts come before the
// API ones'.
func TestTracePartsStaticFirst(t *testing.T) {
	opts := options(newEnv())
	opts.Static = true
	static := newPlugin(opts, vap("s", validate("true")), vapb("sb", "s"))
	api := newPlugin(options(newEnv()), vap("a", validate("true")), vapb("ab", "a"))
	got := traceParts(t, StaticFirst(func() *Plugin { return static }, api), createWeb())
	want := []tracedPart{{Rule: "policy s, binding sb", Outcome: "admitted", Timed: true}, {Rule: "policy a, binding ab", Outcome: "admitted", Timed: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
}

// TestNoPartsUntraced: a request that keeps no trace records none.
func TestNoPartsUntraced(t *testing.T) {
	p := newPlugin(options(newEnv()), vap("p", validate("false")), vapb("b", "p"))
	st := &request.State{}
	_ = p.Validate(request.WithState(context.Background(), st), createWeb())
	if s := st.Steps(); len(s) != 0 {
		t.Errorf("an untraced request recorded %+v", s)
	}
}
