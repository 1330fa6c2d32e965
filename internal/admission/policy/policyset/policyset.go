package policyset

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// Entry is a policy with its bindings.
type Entry[P CompiledPolicy, B CompiledBinding] struct {
	Policy   P
	Bindings *matching.Index[B]
}

// Snapshot is what one request reads.
type Snapshot[P CompiledPolicy, B CompiledBinding] struct {
	// Index holds the policies that have bindings.
	Index *matching.Index[*Entry[P, B]]
}

// Set is safe for concurrent use.
type Set[P CompiledPolicy, B CompiledBinding] struct {
	mu       sync.Mutex
	policies map[string]stored[P]
	bindings map[string]B
	dirty    atomic.Bool
	snap     atomic.Pointer[Snapshot[P, B]]
}

// New returns an empty set.
func New[P CompiledPolicy, B CompiledBinding]() *Set[P, B] {
	s := &Set[P, B]{policies: map[string]stored[P]{}, bindings: map[string]B{}}
	s.snap.Store(&Snapshot[P, B]{Index: matching.NewIndex[*Entry[P, B]]()})
	return s
}

// stored is a compiled policy with the spec it was compiled from.
type stored[P any] struct {
	policy P
	spec   any
}

// PutPolicy stores the policy compile returns for spec, unless the
// stored policy of that name was compiled from an equal spec: a status or
// metadata change keeps it. compile runs without the lock held.
func (s *Set[P, B]) PutPolicy(name string, spec any, compile func() P) {
	s.mu.Lock()
	old, ok := s.policies[name]
	s.mu.Unlock()
	if ok && apiequality.Semantic.DeepEqual(old.spec, spec) {
		s.mu.Lock()
		s.policies[name] = stored[P]{old.policy, spec}
		s.mu.Unlock()
		return
	}
	c := compile()
	s.mu.Lock()
	s.policies[name] = stored[P]{c, spec}
	s.dirty.Store(true)
	s.mu.Unlock()
}

// Policy returns a stored policy.
func (s *Set[P, B]) Policy(name string) (P, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.policies[name]
	return p.policy, ok
}

// PutBinding stores a binding.
func (s *Set[P, B]) PutBinding(b B) {
	s.mu.Lock()
	s.bindings[b.Common().Name] = b
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
		name := b.Common().PolicyName
		if _, ok := s.policies[name]; ok {
			byPolicy[name] = append(byPolicy[name], b)
		}
	}
	names := make([]string, 0, len(byPolicy))
	for n := range byPolicy {
		names = append(names, n)
	}
	slices.Sort(names)
	idx := matching.NewIndex[*Entry[P, B]]()
	for _, n := range names {
		pol := s.policies[n].policy
		if pol.Common().Dropped {
			continue
		}
		bs := byPolicy[n]
		slices.SortFunc(bs, func(a, b B) int { return cmp.Compare(a.Common().Name, b.Common().Name) })
		e := &Entry[P, B]{Policy: pol, Bindings: matching.NewIndex[B]()}
		for _, b := range bs {
			e.Bindings.Add(b, b.Common().Match)
		}
		idx.Add(e, pol.Common().Match)
	}
	return &Snapshot[P, B]{Index: idx}
}
