// Package policyset holds the compiled admission policies and bindings of
// one plugin (ValidatingAdmissionPolicy or MutatingAdmissionPolicy) and the
// immutable snapshot requests read: the policies that have bindings,
// indexed by what they match, each with its bindings indexed the same way,
// both in name order. Changes mark the set dirty; the next request
// rebuilds the snapshot once.
package policyset

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// Policy is a compiled policy.
type Policy interface {
	// Criteria are the policy's match constraints.
	Criteria() *matching.Criteria
	// Dropped policies are left out altogether (kube-apiserver drops a
	// policy whose paramKind does not parse).
	Dropped() bool
}

// Binding is a compiled binding.
type Binding interface {
	BindingName() string
	PolicyName() string
	// Criteria are the binding's matchResources.
	Criteria() *matching.Criteria
}

// Entry is a policy with its bindings.
type Entry[P Policy, B Binding] struct {
	Policy   P
	Bindings *matching.Index[B]
}

// Snapshot is what one request reads.
type Snapshot[P Policy, B Binding] struct {
	// Index holds the policies that have bindings.
	Index *matching.Index[*Entry[P, B]]
}

// Set is safe for concurrent use.
type Set[P Policy, B Binding] struct {
	mu       sync.Mutex
	policies map[string]P
	bindings map[string]B
	dirty    atomic.Bool
	snap     atomic.Pointer[Snapshot[P, B]]
}

// New returns an empty set.
func New[P Policy, B Binding]() *Set[P, B] {
	s := &Set[P, B]{policies: map[string]P{}, bindings: map[string]B{}}
	s.snap.Store(&Snapshot[P, B]{Index: matching.NewIndex[*Entry[P, B]]()})
	return s
}

// PutPolicy stores the policy compile returns; compile gets the stored
// policy of that name (ok false when none), so an unchanged spec can reuse
// it. compile runs without the lock held.
func (s *Set[P, B]) PutPolicy(name string, compile func(old P, ok bool) P) {
	s.mu.Lock()
	old, ok := s.policies[name]
	s.mu.Unlock()
	c := compile(old, ok)
	s.mu.Lock()
	s.policies[name] = c
	s.dirty.Store(true)
	s.mu.Unlock()
}

// Policy returns a stored policy.
func (s *Set[P, B]) Policy(name string) (P, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.policies[name]
	return p, ok
}

// PutBinding stores a binding.
func (s *Set[P, B]) PutBinding(b B) {
	s.mu.Lock()
	s.bindings[b.BindingName()] = b
	s.dirty.Store(true)
	s.mu.Unlock()
}

// DeletePolicy removes a policy by name.
func (s *Set[P, B]) DeletePolicy(name string) {
	s.mu.Lock()
	delete(s.policies, name)
	s.dirty.Store(true)
	s.mu.Unlock()
}

// DeleteBinding removes a binding by name.
func (s *Set[P, B]) DeleteBinding(name string) {
	s.mu.Lock()
	delete(s.bindings, name)
	s.dirty.Store(true)
	s.mu.Unlock()
}

// Current returns the snapshot, rebuilding it after changes.
func (s *Set[P, B]) Current() *Snapshot[P, B] {
	if s.dirty.Load() {
		s.mu.Lock()
		if s.dirty.Load() {
			s.snap.Store(s.build())
			s.dirty.Store(false)
		}
		s.mu.Unlock()
	}
	return s.snap.Load()
}

// build indexes the policies that have bindings, in name order, and each
// policy's bindings, in name order. Called with mu held.
func (s *Set[P, B]) build() *Snapshot[P, B] {
	byPolicy := map[string][]B{}
	for _, b := range s.bindings {
		if _, ok := s.policies[b.PolicyName()]; ok {
			byPolicy[b.PolicyName()] = append(byPolicy[b.PolicyName()], b)
		}
	}
	names := make([]string, 0, len(byPolicy))
	for n := range byPolicy {
		names = append(names, n)
	}
	slices.Sort(names)
	idx := matching.NewIndex[*Entry[P, B]]()
	for _, n := range names {
		pol := s.policies[n]
		if pol.Dropped() {
			continue
		}
		bs := byPolicy[n]
		slices.SortFunc(bs, func(a, b B) int { return cmp.Compare(a.BindingName(), b.BindingName()) })
		e := &Entry[P, B]{Policy: pol, Bindings: matching.NewIndex[B]()}
		for _, b := range bs {
			e.Bindings.Add(b, b.Criteria())
		}
		idx.Add(e, pol.Criteria())
	}
	return &Snapshot[P, B]{Index: idx}
}
