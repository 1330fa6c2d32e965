package node

import (
	"hash/maphash"
	"slices"
)

// kind is the API type a vertex stands for.
type kind uint8

const (
	kindNode kind = iota
	kindPod
	kindSecret
	kindConfigMap
	kindPVC
	kindPV
	kindServiceAccount
	kindResourceClaim
	kindVolumeAttachment
	kindResourceSlice
	kindPodCertificateRequest
)

var kindNames = [...]string{
	kindNode:                  "node",
	kindPod:                   "pod",
	kindSecret:                "secret",
	kindConfigMap:             "configmap",
	kindPVC:                   "pvc",
	kindPV:                    "pv",
	kindServiceAccount:        "serviceaccount",
	kindResourceClaim:         "resourceclaim",
	kindVolumeAttachment:      "volumeattachment",
	kindResourceSlice:         "resourceslice",
	kindPodCertificateRequest: "podcertificaterequest",
}

func (k kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// key names a vertex: the API object it stands for.
type key struct {
	kind      kind
	namespace string
	name      string
}

// indexMin is the out-degree from which a vertex keeps a destination
// index. Below it, walking the edges is as fast as a map lookup; above it,
// walking would make a decision cost grow with the number of pods that
// share the object (every pod of a namespace mounts kube-root-ca.crt).
const indexMin = smallSetMax

// maxDepth bounds a walk. The deepest path the graph can hold is
// secret -> pv -> pvc -> pod -> node; the bound only guards against a bug
// turning a walk into a loop.
const maxDepth = 4

// kindFree marks a vertex slot that holds no vertex.
const kindFree kind = 255

// none ends a hash chain.
const none = ^uint32(0)

// vertex is one API object and its edges. Edges point towards nodes:
//
//	pod -> node
//	secret, configmap, pvc, serviceaccount, resourceclaim -> pod
//	pv -> pvc, secret -> pv
//	volumeattachment, resourceslice, podcertificaterequest -> node
//
// An edge into a pod or a node is a destination edge: it leads to exactly
// one node, known when the edge is made (a pod's node never changes while
// it has edges, because a rebound pod is removed and added again). Edges
// into a pv or a pvc are plain: where they lead depends on pods that may
// come later.
type vertex struct {
	key key
	out idSet // edges from this vertex
	in  idSet // edges into this vertex
	// dest counts, per node vertex, the destination edges in out that lead
	// to it. It exists only for vertices with many edges, and is exact: a
	// node missing from it is reached, if at all, through a plain edge.
	dest map[uint32]int32
	// plain counts the plain edges in out.
	plain int32
	// next is the next vertex whose key has the same hash, or none.
	next uint32
}

func (v *vertex) live() bool { return v.key.kind != kindFree }

// chunkBits sizes the blocks vertices are allocated in: 1024 vertices,
// about 120 KiB. Blocks never move, so growing the graph copies nothing
// and a *vertex stays valid while vertices are added.
const chunkBits = 10

// graph is the relation between nodes and the objects their pods use.
// Vertices are numbered and live in fixed blocks; an edge is a four-byte
// number, and freed numbers are reused. Vertices are found by the hash of
// their key in a map without pointers, which the garbage collector need
// not scan, chained through vertex.next in the (unseen in practice) case
// of two keys with one 64-bit hash. Not safe for concurrent use: the
// Authorizer guards it.
type graph struct {
	seed   maphash.Seed
	heads  map[uint64]uint32
	chunks []*[1 << chunkBits]vertex
	n      uint32   // slots in use, live or free
	free   []uint32 // free slots
	count  int      // live vertices
	// scratch is reused by walks that change the sets they walk.
	scratch []uint32
	// weakHash, set by tests, hashes every key of a kind alike, so that
	// the hash chains are exercised.
	weakHash bool
}

func newGraph() *graph {
	return &graph{seed: maphash.MakeSeed(), heads: map[uint64]uint32{}}
}

func (g *graph) vx(id uint32) *vertex {
	return &g.chunks[id>>chunkBits][id&(1<<chunkBits-1)]
}

// len is the number of vertices.
func (g *graph) len() int { return g.count }

func (g *graph) hash(k key) uint64 {
	if g.weakHash {
		return uint64(k.kind)
	}
	return maphash.Comparable(g.seed, k)
}

func (g *graph) lookup(k key) (uint32, bool) {
	id, ok := g.heads[g.hash(k)]
	for ok {
		v := g.vx(id)
		if v.key == k {
			return id, true
		}
		id, ok = v.next, v.next != none
	}
	return 0, false
}

// vertexFor returns the vertex named k, creating it without edges. The
// caller must give a new vertex an edge before it releases the lock, or
// remove it; the invariant check in the tests holds it to that.
func (g *graph) vertexFor(k key) uint32 {
	h := g.hash(k)
	head, chained := g.heads[h]
	for id, ok := head, chained; ok; {
		v := g.vx(id)
		if v.key == k {
			return id
		}
		id, ok = v.next, v.next != none
	}
	var id uint32
	if n := len(g.free); n > 0 {
		id = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		if g.n>>chunkBits == uint32(len(g.chunks)) {
			g.chunks = append(g.chunks, new([1 << chunkBits]vertex))
		}
		id = g.n
		g.n++
	}
	next := none
	if chained {
		next = head
	}
	*g.vx(id) = vertex{key: k, next: next}
	g.heads[h] = id
	g.count++
	return id
}

// unname takes a vertex out of its hash chain.
func (g *graph) unname(id uint32) {
	v := g.vx(id)
	h := g.hash(v.key)
	head := g.heads[h]
	if head == id {
		if v.next == none {
			delete(g.heads, h)
		} else {
			g.heads[h] = v.next
		}
		return
	}
	for p := g.vx(head); p.next != none; p = g.vx(p.next) {
		if p.next == id {
			p.next = v.next
			return
		}
	}
}

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

// removeEdgeAndOrphan removes an edge and whichever end it left alone.
func (g *graph) removeEdgeAndOrphan(from, to uint32) {
	g.removeEdge(from, to)
	if g.orphan(from) {
		g.release(from)
	}
	if g.orphan(to) {
		g.release(to)
	}
}

func (g *graph) release(id uint32) {
	g.unname(id)
	*g.vx(id) = vertex{key: key{kind: kindFree}, next: none}
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
