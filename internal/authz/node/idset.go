package node

// smallSetMax is the size up to which an idSet is a plain slice. Most sets
// in the graph hold one or two ids (a pod's node, a private secret's pod),
// where a slice is both smaller and faster than a map; a few hold
// thousands (a namespace's kube-root-ca.crt, a shared service account),
// where removal from a slice would cost a linear scan on every pod event.
const smallSetMax = 16

// idSet is a set of vertex ids: a slice while small, a map once large.
type idSet struct {
	small []uint32
	large map[uint32]struct{}
}

func (s *idSet) len() int {
	if s.large != nil {
		return len(s.large)
	}
	return len(s.small)
}

func (s *idSet) has(id uint32) bool {
	if s.large != nil {
		_, ok := s.large[id]
		return ok
	}
	for _, x := range s.small {
		if x == id {
			return true
		}
	}
	return false
}

// add reports whether id was not yet in the set.
func (s *idSet) add(id uint32) bool {
	if s.large != nil {
		if _, ok := s.large[id]; ok {
			return false
		}
		s.large[id] = struct{}{}
		return true
	}
	if s.has(id) {
		return false
	}
	if len(s.small) < smallSetMax {
		s.small = append(s.small, id)
		return true
	}
	s.large = make(map[uint32]struct{}, 2*smallSetMax)
	for _, x := range s.small {
		s.large[x] = struct{}{}
	}
	s.large[id] = struct{}{}
	s.small = nil
	return true
}

// remove reports whether id was in the set. A large set that has shrunk
// well below smallSetMax goes back to a slice; the gap between the two
// thresholds keeps a set at the boundary from converting on every event.
func (s *idSet) remove(id uint32) bool {
	if s.large != nil {
		if _, ok := s.large[id]; !ok {
			return false
		}
		delete(s.large, id)
		if len(s.large) <= smallSetMax/2 {
			small := make([]uint32, 0, len(s.large))
			for x := range s.large {
				small = append(small, x)
			}
			s.small, s.large = small, nil
		}
		return true
	}
	for i, x := range s.small {
		if x == id {
			last := len(s.small) - 1
			s.small[i] = s.small[last]
			s.small = s.small[:last]
			if last == 0 {
				s.small = nil
			}
			return true
		}
	}
	return false
}

// each calls f for every id until f returns false; it reports whether it
// saw them all. The set must not change during the walk.
func (s *idSet) each(f func(uint32) bool) bool {
	if s.large != nil {
		for x := range s.large {
			if !f(x) {
				return false
			}
		}
		return true
	}
	for _, x := range s.small {
		if !f(x) {
			return false
		}
	}
	return true
}

// appendTo appends the ids to dst, for walks that change the set.
func (s *idSet) appendTo(dst []uint32) []uint32 {
	if s.large != nil {
		for x := range s.large {
			dst = append(dst, x)
		}
		return dst
	}
	return append(dst, s.small...)
}
