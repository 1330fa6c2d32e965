package node

import "hash/maphash"

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

// key names an API object.
type key struct {
	kind      kind
	namespace string
	name      string
}

// vkey is a key as a vertex holds it: the namespace as a number, which
// makes the vertex 16 bytes smaller and keeps one copy of each
// namespace's name instead of one per object.
type vkey struct {
	name string
	ns   uint32
	kind kind
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
	key vkey
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

// chunkBits sizes the blocks vertices are allocated in: 1024 vertices of
// 104 bytes. Blocks never move, so growing the graph copies nothing
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
	// Namespaces by number; number 0 is the empty namespace of
	// cluster-scoped objects. A namespace is forgotten with its last vertex.
	nsIDs   map[string]uint32
	nsNames []string
	nsRefs  []int32
	nsFree  []uint32
	// scratch is reused by walks that change the sets they walk.
	scratch []uint32
	// weakHash, set by tests, hashes every key of a kind alike, so that
	// the hash chains are exercised.
	weakHash bool
}

func newGraph() *graph {
	return &graph{
		seed:    maphash.MakeSeed(),
		heads:   map[uint64]uint32{},
		nsIDs:   map[string]uint32{"": 0},
		nsNames: []string{""},
		nsRefs:  []int32{1},
	}
}

// vkeyOf converts a key for lookup; ok is false for a namespace no vertex
// is in.
func (g *graph) vkeyOf(k key) (vkey, bool) {
	if k.namespace == "" {
		return vkey{name: k.name, kind: k.kind}, true
	}
	ns, ok := g.nsIDs[k.namespace]
	return vkey{name: k.name, ns: ns, kind: k.kind}, ok
}

// keyOf returns the key of vertex id.
func (g *graph) keyOf(id uint32) key {
	v := g.vx(id)
	return key{kind: v.key.kind, namespace: g.nsNames[v.key.ns], name: v.key.name}
}

// intern numbers a namespace for a new vertex.
func (g *graph) intern(namespace string) uint32 {
	ns, ok := g.nsIDs[namespace]
	if !ok {
		if n := len(g.nsFree); n > 0 {
			ns = g.nsFree[n-1]
			g.nsFree = g.nsFree[:n-1]
			g.nsNames[ns] = namespace
		} else {
			ns = uint32(len(g.nsNames))
			g.nsNames = append(g.nsNames, namespace)
			g.nsRefs = append(g.nsRefs, 0)
		}
		g.nsIDs[namespace] = ns
	}
	g.nsRefs[ns]++
	return ns
}

// unintern drops a vertex's hold on its namespace.
func (g *graph) unintern(ns uint32) {
	if g.nsRefs[ns]--; g.nsRefs[ns] == 0 {
		delete(g.nsIDs, g.nsNames[ns])
		g.nsNames[ns] = ""
		g.nsFree = append(g.nsFree, ns)
	}
}

func (g *graph) vx(id uint32) *vertex {
	return &g.chunks[id>>chunkBits][id&(1<<chunkBits-1)]
}

// len is the number of vertices.
func (g *graph) len() int { return g.count }

func (g *graph) hash(k vkey) uint64 {
	if g.weakHash {
		return uint64(k.kind)
	}
	return maphash.Comparable(g.seed, k)
}

func (g *graph) lookup(ek key) (uint32, bool) {
	k, ok := g.vkeyOf(ek)
	if !ok {
		return 0, false
	}
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
	if id, ok := g.lookup(k); ok {
		return id
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
	vk := vkey{name: k.name, ns: g.intern(k.namespace), kind: k.kind}
	h := g.hash(vk)
	next := none
	if head, ok := g.heads[h]; ok {
		next = head
	}
	*g.vx(id) = vertex{key: vk, next: next}
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
