package admission

import (
	"context"
	"time"
)

// Reinvocation is the state one request keeps across the mutating rounds
// of the admission chain, kube-apiserver's reinvocation context. The chain
// runs every mutating plugin once; when a plugin asked for it
// (SetShouldReinvoke), it runs them all once more, with IsReinvoke set, and
// plugins that take part (MutatingAdmissionPolicy, the mutating webhooks)
// then run again only what their reinvocation policy asks for. Plugins
// keep their own per-request state with Value and SetValue. Not safe for
// concurrent use: mutating plugins run one after another.
type Reinvocation struct {
	isReinvoke     bool
	shouldReinvoke bool
	values         map[any]any
}

// IsReinvoke reports whether the chain is in its reinvocation round.
func (r *Reinvocation) IsReinvoke() bool { return r != nil && r.isReinvoke }

// SetIsReinvoke marks the start of the reinvocation round.
func (r *Reinvocation) SetIsReinvoke() { r.isReinvoke = true }

// ShouldReinvoke reports whether a plugin asked for a reinvocation round.
func (r *Reinvocation) ShouldReinvoke() bool { return r != nil && r.shouldReinvoke }

// SetShouldReinvoke asks the chain for a reinvocation round.
func (r *Reinvocation) SetShouldReinvoke() {
	if r != nil {
		r.shouldReinvoke = true
	}
}

// Value returns a plugin's state, nil when none was set.
func (r *Reinvocation) Value(key any) any {
	if r == nil {
		return nil
	}
	return r.values[key]
}

// SetValue keeps a plugin's state for the next round; key is the plugin's
// own (a pointer to it, typically).
func (r *Reinvocation) SetValue(key, v any) {
	if r.values == nil {
		r.values = map[any]any{}
	}
	r.values[key] = v
}

type reinvocationKey struct{}

// WithReinvocation returns a context carrying r for the mutating plugins.
func WithReinvocation(ctx context.Context, r *Reinvocation) context.Context {
	return context.WithValue(ctx, reinvocationKey{}, r)
}

// ReinvocationFrom returns the reinvocation state carried by ctx, or nil:
// without one, plugins run once and never ask for more.
func ReinvocationFrom(ctx context.Context) *Reinvocation {
	r, _ := ctx.Value(reinvocationKey{}).(*Reinvocation)
	return r
}

// AdmitWithReinvocation is the chain's mutating stage with
// kube-apiserver's reinvocation: every mutator in order, then, when one of
// them asked for it, every mutator once more. The first error stops it.
func AdmitWithReinvocation(ctx context.Context, a *Attributes, mutators []Mutator) error {
	return admitRounds(ctx, a, mutators, nil)
}

// admitRounds is AdmitWithReinvocation, tracing each mutator under its
// name (names parallel to mutators, or nil).
func admitRounds(ctx context.Context, a *Attributes, mutators []Mutator, names []string) error {
	r := &Reinvocation{}
	ctx = WithReinvocation(ctx, r)
	st := traced(ctx, names)
	for round := range 2 {
		if round == 1 {
			if !r.ShouldReinvoke() {
				return nil
			}
			r.SetIsReinvoke()
		}
		for i, m := range mutators {
			if st == nil {
				if err := m.Admit(ctx, a); err != nil {
					return err
				}
				continue
			}
			phase := "mutate"
			if round == 1 {
				phase = "mutate (reinvoked)"
			}
			mark, start := st.Mark(), time.Now()
			err := m.Admit(ctx, a)
			recordStep(st, names[i], phase, mark, start, err)
			if err != nil {
				return err
			}
		}
	}
	return nil
}
