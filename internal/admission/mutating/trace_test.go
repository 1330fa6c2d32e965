package mutating

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// tracedPart is what the tests check of a part.
type tracedPart struct {
	Step, Rule, Phase, Outcome, Detail string
}

// traceParts admits a through a chain of p and then later, as the server
// does, and returns the parts of p's steps (both rounds), each with its
// step's phase.
func traceParts(t *testing.T, p *Plugin, later admission.Mutator, a *admission.Attributes) []tracedPart {
	t.Helper()
	st := &request.State{Trace: true}
	chain := &admission.Chain{Mutators: []admission.Mutator{p, later}, MutatorNames: []string{PluginName, "later"}}
	_ = chain.Admit(request.WithState(context.Background(), st), a)
	var out []tracedPart
	for _, s := range st.Steps() {
		if s.Name != PluginName && len(s.Parts) > 0 {
			t.Errorf("step %s has parts %+v", s.Name, s.Parts)
		}
		for _, part := range s.Parts {
			out = append(out, tracedPart{Step: s.Phase, Rule: part.Rule, Phase: part.Phase, Outcome: part.Outcome, Detail: part.Detail})
		}
	}
	return out
}

func TestTraceParts(t *testing.T) {
	e := newEnv()
	e.Add(configMapGVK, configMap("default", "settings", nil, map[string]string{"env": "staging"}))
	const (
		mutate   = request.PhaseMutate
		reinvoke = request.PhaseMutateReinvoked
	)
	label := applyConfig(`Object{metadata: Object.metadata{labels: {"app": "web"}}}`)
	failing := applyConfig(`Object{metadata: Object.metadata{labels: {"x": object.metadata.annotations["missing"]}}}`)
	const failure = `expression 'Object{metadata: Object.metadata{labels: {"x": object.metadata.annotations["missing"]}}}' resulted in error: no such key: annotations`
	nothing := setTeam(false, false)
	tests := []struct {
		name   string
		docs   []string
		labels map[string]string
		later  admission.Mutator
		want   []tracedPart
	}{
		{name: "mutated", docs: []string{podPolicy("p", label)}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy p, binding p-binding", Phase: mutate, Outcome: "mutated"}}},
		{name: "unchanged", docs: []string{podPolicy("p", label)}, labels: map[string]string{"app": "web"}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy p, binding p-binding", Phase: mutate, Outcome: "unchanged"}}},
		{name: "denied", docs: []string{podPolicy("p", failing)}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy p, binding p-binding", Phase: mutate, Outcome: "denied", Detail: failure}}},
		{name: "error ignored", docs: []string{podPolicy("p", "  failurePolicy: Ignore\n"+failing)}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy p, binding p-binding", Phase: mutate, Outcome: "error (failurePolicy Ignore)", Detail: failure}}},
		{name: "excluded by match conditions", docs: []string{podPolicy("p", "  matchConditions:\n  - name: never\n    expression: 'false'\n"+label)}, later: nothing},
		{name: "match condition error", docs: []string{podPolicy("p", "  matchConditions:\n  - name: inject\n    expression: \"object.metadata.labels['inject'] == 'true'\"\n"+label)},
			labels: map[string]string{"other": "x"}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy p, binding p-binding", Phase: mutate, Outcome: "denied",
				Detail: "expression 'object.metadata.labels['inject'] == 'true'' resulted in error: no such key: inject"}}},
		{name: "policies in order", docs: []string{podPolicy("b", label), podPolicy("a", failing)}, later: nothing,
			want: []tracedPart{
				{Step: mutate, Rule: "policy a, binding a-binding", Phase: mutate, Outcome: "denied", Detail: failure},
				{Step: mutate, Rule: "policy b, binding b-binding", Phase: mutate, Outcome: "mutated"},
			}},
		{name: "param", docs: []string{paramPolicy, paramBinding("b", "    name: settings\n    parameterNotFoundAction: Deny")}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy env-label, binding b, param default/settings", Phase: mutate, Outcome: "mutated"}}},
		{name: "binding configuration error", docs: []string{paramPolicy, paramBinding("b", "    name: nope\n    parameterNotFoundAction: Deny")}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy env-label, binding b", Outcome: "denied",
				Detail: "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"}}},
		{name: "policy configuration error", docs: []string{strings.Replace(paramPolicy, "kind: ConfigMap", "kind: Frobnicator", 1), paramBinding("b", "    name: settings")}, later: nothing,
			want: []tracedPart{{Step: mutate, Rule: "policy env-label", Outcome: "denied",
				Detail: "failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Frobnicator'"}}},
		{name: "reinvoked", docs: []string{podPolicy("p", strings.Replace(label, "Never", "IfNeeded", 1))}, later: setTeam(true, false),
			want: []tracedPart{
				{Step: mutate, Rule: "policy p, binding p-binding", Phase: mutate, Outcome: "mutated"},
				{Step: reinvoke, Rule: "policy p, binding p-binding", Phase: reinvoke, Outcome: "unchanged"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(e), tc.docs...)
			got := traceParts(t, p, tc.later, podRequest(admission.Create, pod("default", "web", tc.labels), nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}
