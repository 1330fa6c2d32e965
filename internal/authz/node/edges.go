package node

import "slices"

// destination returns the node an edge into vertex t leads to, if the
// edge is a destination edge.
func (g *graph) destination(t uint32) (uint32, bool) {
	switch v := g.vx(t); v.key.kind {
	case kindNode:
		return t, true
	case kindPod:
		return g.only(t)
	}
	return 0, false
}

// only returns the target of a vertex's only edge: the node of a pod,
// volume attachment, resource slice or pod certificate request, the pvc of
// a pv.
func (g *graph) only(id uint32) (uint32, bool) {
	v := g.vx(id)
	if v.out.large == nil && len(v.out.small) == 1 {
		return v.out.small[0], true
	}
	return 0, false
}

func (g *graph) addEdge(from, to uint32) {
	f := g.vx(from)
	if !f.out.add(to) {
		return
	}
	g.vx(to).in.add(from)
	d, ok := g.destination(to)
	switch {
	case !ok:
		f.plain++
	case f.dest != nil:
		f.dest[d]++
	}
	if f.dest == nil && f.out.len() >= indexMin {
		g.buildIndex(from)
	}
}

func (g *graph) removeEdge(from, to uint32) {
	f := g.vx(from)
	if !f.out.remove(to) {
		return
	}
	g.vx(to).in.remove(from)
	d, ok := g.destination(to)
	switch {
	case !ok:
		f.plain--
	case f.dest != nil:
		if f.dest[d]--; f.dest[d] <= 0 {
			delete(f.dest, d)
		}
	}
	if f.dest != nil && f.out.len() < indexMin/2 {
		f.dest = nil
	}
}

func (g *graph) buildIndex(id uint32) {
	dest := map[uint32]int32{}
	g.vx(id).out.each(func(t uint32) bool {
		if d, ok := g.destination(t); ok {
			dest[d]++
		}
		return true
	})
	g.vx(id).dest = dest
}

func (g *graph) orphan(id uint32) bool {
	v := g.vx(id)
	return v.live() && v.out.len() == 0 && v.in.len() == 0
}

// removeVertex removes a vertex, its edges, and the neighbours left
// without edges. Edges into the vertex go first: while they are removed,
// a pod must still know its node to keep its neighbours' indexes right.
func (g *graph) removeVertex(id uint32) {
	if !g.vx(id).live() {
		return
	}
	start := len(g.scratch)
	g.scratch = g.vx(id).in.appendTo(g.scratch)
	mid := len(g.scratch)
	g.scratch = g.vx(id).out.appendTo(g.scratch)
	for _, s := range g.scratch[start:mid] {
		g.removeEdge(s, id)
	}
	for _, t := range g.scratch[mid:] {
		g.removeEdge(id, t)
	}
	g.release(id)
	for _, n := range g.scratch[start:] {
		if g.orphan(n) {
			g.release(n)
		}
	}
	g.scratch = g.scratch[:start]
}

func (g *graph) release(id uint32) {
	g.unname(id)
	g.unintern(g.vx(id).key.ns)
	*g.vx(id) = vertex{key: vkey{kind: kindFree}, next: none}
	g.free = append(g.free, id)
	g.count--
}

// setOut makes to the only target of from's edges, releasing the old
// target if it is left alone. It serves the vertices with one edge: pods,
// volume attachments, resource slices, pod certificate requests, and pvs.
func (g *graph) setOut(from, to uint32) {
	if t, ok := g.only(from); ok && t == to {
		return
	}
	start := len(g.scratch)
	g.scratch = g.vx(from).out.appendTo(g.scratch)
	for _, t := range g.scratch[start:] {
		if t != to {
			g.removeEdge(from, t)
			if g.orphan(t) {
				g.release(t)
			}
		}
	}
	g.scratch = g.scratch[:start]
	g.addEdge(from, to)
}

// setIn makes want (sorted, without duplicates) the vertices with an edge
// into id: it adds the missing edges and removes the others, releasing
// sources left alone. Changing only the difference keeps a pod update
// that changes nothing (a status update) from touching shared vertices.
func (g *graph) setIn(id uint32, want []uint32) {
	start := len(g.scratch)
	g.scratch = g.vx(id).in.appendTo(g.scratch)
	have := g.scratch[start:]
	slices.Sort(have)
	i, j := 0, 0
	for i < len(have) || j < len(want) {
		switch {
		case j == len(want) || (i < len(have) && have[i] < want[j]):
			g.removeEdge(have[i], id)
			if g.orphan(have[i]) {
				g.release(have[i])
			}
			i++
		case i == len(have) || want[j] < have[i]:
			g.addEdge(want[j], id)
			j++
		default:
			i++
			j++
		}
	}
	g.scratch = g.scratch[:start]
}
