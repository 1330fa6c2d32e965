package mutating

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// invocationKey identifies an invocation across rounds.
type invocationKey struct {
	policy, binding           string
	paramNamespace, paramName string
}

func (inv *invocation) key() invocationKey {
	k := invocationKey{policy: inv.policy.Name, binding: inv.binding.Name}
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
func (p *Plugin) reinvocationState(r *admission.Reinvocation) *reinvocationState {
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
func (p *Plugin) saveOutput(r *admission.Reinvocation, obj runtime.Object) {
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
