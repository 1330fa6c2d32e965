package mutating

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
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
func AdmitWithReinvocation(ctx context.Context, a *admission.Attributes, mutators []admission.Mutator) error {
	r := &Reinvocation{}
	ctx = WithReinvocation(ctx, r)
	for round := range 2 {
		if round == 1 {
			if !r.ShouldReinvoke() {
				return nil
			}
			r.SetIsReinvoke()
		}
		for _, m := range mutators {
			if err := m.Admit(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// invocationKey identifies an invocation across rounds.
type invocationKey struct {
	policy, binding           string
	paramNamespace, paramName string
}

func (inv *invocation) key() invocationKey {
	k := invocationKey{policy: inv.policy.name, binding: inv.binding.name}
	if inv.param != nil {
		if m, err := meta.Accessor(inv.param); err == nil {
			k.paramNamespace, k.paramName = m.GetNamespace(), m.GetName()
		}
	}
	return k
}

// reinvocationState is the plugin's state in a Reinvocation.
type reinvocationState struct {
	// lastOutput is the object as this plugin last let it go, kept only
	// while an invocation may be reinvoked.
	lastOutput runtime.Object
	// pending are the IfNeeded invocations run since the object last
	// changed; reinvoke those to run in the reinvocation round.
	pending, reinvoke map[invocationKey]bool
}

// reinvocationState returns the plugin's state in r; a throwaway one
// without r.
func (p *Plugin) reinvocationState(r *Reinvocation) *reinvocationState {
	if st, ok := r.Value(p).(*reinvocationState); ok {
		return st
	}
	st := &reinvocationState{}
	if r != nil {
		r.SetValue(p, st)
	}
	return st
}

func (s *reinvocationState) invoked(k invocationKey) {
	if s.pending == nil {
		s.pending = map[invocationKey]bool{}
	}
	s.pending[k] = true
}

// requireReinvocation marks the pending invocations for reinvocation: the
// object changed after they ran.
func (s *reinvocationState) requireReinvocation() {
	if len(s.pending) == 0 {
		return
	}
	if s.reinvoke == nil {
		s.reinvoke = map[invocationKey]bool{}
	}
	for k := range s.pending {
		s.reinvoke[k] = true
	}
	s.pending = nil
}

func (s *reinvocationState) shouldReinvoke(k invocationKey) bool { return s.reinvoke[k] }

// saveOutput remembers obj as this plugin's output, when an invocation is
// pending: the reinvocation round compares it with what later plugins
// made of it.
func (p *Plugin) saveOutput(r *Reinvocation, obj runtime.Object) {
	st, ok := r.Value(p).(*reinvocationState)
	if !ok {
		return
	}
	st.lastOutput = nil
	if len(st.pending) > 0 && !matching.IsNil(obj) {
		st.lastOutput = obj.DeepCopyObject()
	}
}

// equalObjects compares objects as kube-apiserver does to tell whether a
// mutation changed one.
func equalObjects(a, b runtime.Object) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}
