package node

// reaches reports whether a path leads from vertex s to node vertex n.
func (g *graph) reaches(s, n uint32, depth int) bool {
	if s == n {
		return true
	}
	v := g.vx(s)
	if v.dest != nil {
		if v.dest[n] > 0 {
			return true
		}
		if v.plain == 0 {
			return false
		}
	}
	if depth >= maxDepth {
		return false
	}
	if v.key.kind == kindSecret && int(v.plain) > reverseFactor*g.vx(n).in.len() {
		return g.secretReachesBack(s, n)
	}
	if v.out.large == nil {
		for _, t := range v.out.small {
			if g.step(t, n, depth) {
				return true
			}
		}
		return false
	}
	for t := range v.out.large {
		if g.step(t, n, depth) {
			return true
		}
	}
	return false
}

// reverseFactor weighs a walk back from a node (its pods, their claims,
// the claims' volumes: several steps per pod) against a walk forward
// from a secret's volumes (a few steps each).
const reverseFactor = 4

// secretReachesBack answers reaches for a secret with many plain edges
// (the one node secret of a CSI driver, named by every volume of the
// driver) by walking back from the node instead: no index covers plain
// edges, and walking thousands of volumes to refuse a request would make
// the refusal cost grow with the cluster. The walk is bounded by the
// node's pods.
func (g *graph) secretReachesBack(s, n uint32) bool {
	found := false
	g.vx(n).in.each(func(p uint32) bool {
		pod := g.vx(p)
		if pod.key.kind != kindPod {
			return true
		}
		if pod.in.has(s) {
			found = true
			return false
		}
		pod.in.each(func(c uint32) bool {
			if g.vx(c).key.kind == kindPVC {
				g.vx(c).in.each(func(pv uint32) bool {
					found = g.vx(pv).in.has(s)
					return !found
				})
			}
			return !found
		})
		return !found
	})
	return found
}

// step reports whether the edge into t leads to node n.
func (g *graph) step(t, n uint32, depth int) bool {
	switch g.vx(t).key.kind {
	case kindNode:
		return t == n
	case kindPod:
		d, ok := g.only(t)
		return ok && d == n
	}
	return g.reaches(t, n, depth+1)
}

// related reports whether the object named k is connected to the node.
func (g *graph) related(nodeName string, k key) bool {
	n, ok := g.lookup(key{kind: kindNode, name: nodeName})
	if !ok {
		return false
	}
	s, ok := g.lookup(k)
	if !ok {
		return false
	}
	return g.reaches(s, n, 0)
}
