package admission

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/request"
)

// TestStepsTakeTheirParts: each plugin's step holds the parts and audit
// annotations that plugin recorded, in the order it recorded them, in
// both mutating rounds and in validation.
func TestStepsTakeTheirParts(t *testing.T) {
	part := func(rule string) request.Step { return request.Step{Rule: rule, Outcome: "admitted"} }
	recorder := func(rules ...string) func(ctx context.Context) {
		return func(ctx context.Context) {
			st := request.StateFrom(ctx)
			for _, r := range rules {
				st.AddPart(part(r))
			}
		}
	}
	first := recorder("policy b, binding b", "policy a, binding a")
	asker := MutatorFunc(func(ctx context.Context, a *Attributes) error {
		first(ctx)
		request.StateFrom(ctx).AddAnnotation("first/key", "v")
		if r := ReinvocationFrom(ctx); !r.IsReinvoke() {
			r.SetShouldReinvoke()
		}
		return nil
	})
	quiet := MutatorFunc(func(context.Context, *Attributes) error { return nil })
	denier := ValidatorFunc(func(ctx context.Context, a *Attributes) error {
		recorder("webhook w (configuration c)")(ctx)
		return errors.New("no")
	})
	chain := &Chain{Mutators: []Mutator{asker, quiet}, MutatorNames: []string{"Asker", "Quiet"},
		Validators: []Validator{denier}, ValidatorNames: []string{"Denier"}}
	st := &request.State{Trace: true}
	ctx := request.WithState(context.Background(), st)
	a := &Attributes{}
	if err := chain.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := chain.Validate(ctx, a); err == nil {
		t.Fatal("the denier admitted")
	}
	type step struct {
		Name, Phase, Outcome string
		Parts                []string
		Annotations          []string
	}
	var got []step
	for _, s := range st.Steps() {
		g := step{Name: s.Name, Phase: s.Phase, Outcome: s.Outcome, Annotations: s.Annotations}
		for _, p := range s.Parts {
			g.Parts = append(g.Parts, p.Rule)
		}
		got = append(got, g)
	}
	want := []step{
		{Name: "Asker", Phase: request.PhaseMutate, Outcome: "admitted", Parts: []string{"policy b, binding b", "policy a, binding a"}, Annotations: []string{"first/key"}},
		{Name: "Quiet", Phase: request.PhaseMutate, Outcome: "admitted"},
		{Name: "Asker", Phase: request.PhaseMutateReinvoked, Outcome: "admitted", Parts: []string{"policy b, binding b", "policy a, binding a"}},
		{Name: "Quiet", Phase: request.PhaseMutateReinvoked, Outcome: "admitted"},
		{Name: "Denier", Phase: request.PhaseValidate, Outcome: "denied", Parts: []string{"webhook w (configuration c)"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}
