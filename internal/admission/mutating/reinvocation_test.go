package mutating

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/checkmetrics"
	"github.com/portcullis/portcullis/internal/request"
)

// setTeam is a later mutator: it labels the pod team=x and, like a
// webhook, may ask for the reinvocation round.
func setTeam(change, askReinvoke bool) admission.Mutator {
	return admission.MutatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		if change {
			p := a.Object.(*corev1.Pod).DeepCopy()
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels["team"] = "x"
			a.Object = p
		}
		if askReinvoke {
			admission.ReinvocationFrom(ctx).SetShouldReinvoke()
		}
		return nil
	})
}

func TestReinvocation(t *testing.T) {
	// copyTeam records the team label as an annotation; it fails (and is
	// ignored) while the pod has no team label when strict.
	copyTeam := func(reinvocation string, strict bool) string {
		value := `has(object.metadata.labels) && "team" in object.metadata.labels ? object.metadata.labels["team"] : "none"`
		if strict {
			value = `object.metadata.labels["team"]`
		}
		return `  failurePolicy: Ignore
  reinvocationPolicy: ` + reinvocation + `
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{annotations: {"team-was": ` + value + `}}}'
`
	}
	tests := []struct {
		name         string
		reinvocation string
		strict       bool
		later        admission.Mutator
		wantTeamWas  string
		wantRuns     float64
	}{
		{"IfNeeded sees a later change", "IfNeeded", false, setTeam(true, false), "x", 2},
		{"Never does not", "Never", false, setTeam(true, false), "none", 1},
		{"IfNeeded runs again once even without a change", "IfNeeded", false, setTeam(false, false), "none", 2},
		{"IfNeeded that changed nothing sees a later change", "IfNeeded", true, setTeam(true, true), "x", 2},
		{"IfNeeded that changed nothing, nothing changed after", "IfNeeded", true, setTeam(false, true), "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("copy", copyTeam(tc.reinvocation, tc.strict)))
			a := podRequest(admission.Create, pod("default", "web", nil), nil)
			ctx := request.WithState(context.Background(), &request.State{})
			if err := admission.AdmitWithReinvocation(ctx, a, []admission.Mutator{p, tc.later}); err != nil {
				t.Fatal(err)
			}
			if got := a.Object.(*corev1.Pod).Annotations["team-was"]; got != tc.wantTeamWas {
				t.Errorf("team-was = %q, want %q", got, tc.wantTeamWas)
			}
			runs := testutil.ToFloat64(p.metrics.Checks.WithLabelValues("copy", "copy-binding", checkmetrics.ErrorTypeNone)) +
				testutil.ToFloat64(p.metrics.Checks.WithLabelValues("copy", "copy-binding", checkmetrics.ErrorTypeInvalid))
			if runs != tc.wantRuns {
				t.Errorf("mutation ran %v times, want %v", runs, tc.wantRuns)
			}
		})
	}
}

// TestReinvocationRound: a mutation asks for the round; without a
// Reinvocation in the context the plugin runs once and asks nothing.
func TestReinvocationRound(t *testing.T) {
	p := newPlugin(t, options(newEnv()), podPolicy("p", applyConfig(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)))
	r := &admission.Reinvocation{}
	a := podRequest(admission.Create, pod("default", "web", nil), nil)
	if err := p.Admit(admission.WithReinvocation(context.Background(), r), a); err != nil {
		t.Fatal(err)
	}
	if !r.ShouldReinvoke() || r.IsReinvoke() {
		t.Errorf("should %v is %v", r.ShouldReinvoke(), r.IsReinvoke())
	}

	p = newPlugin(t, options(newEnv()), podPolicy("p", applyConfig(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)))
	if err := p.Admit(context.Background(), podRequest(admission.Create, pod("default", "web", nil), nil)); err != nil {
		t.Fatal(err)
	}

	// No policy applies: nothing asks for the round.
	r = &admission.Reinvocation{}
	if err := p.Admit(admission.WithReinvocation(context.Background(), r), podRequest(admission.Delete, nil, pod("default", "web", nil))); err != nil || r.ShouldReinvoke() {
		t.Errorf("err %v, should %v", err, r.ShouldReinvoke())
	}
}
