package node

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// newTestAuthorizer returns an Authorizer whose graph is checked for
// consistency when the test ends.
func newTestAuthorizer(t testing.TB, opts Options) *Authorizer {
	t.Helper()
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.g.check(); err != nil {
			t.Errorf("graph invariant: %v", err)
		}
	})
	return a
}

// edgeAllowed is the shape of the graph: which kinds an edge may join.
func edgeAllowed(from, to kind) bool {
	switch from {
	case kindPod, kindVolumeAttachment, kindResourceSlice, kindPodCertificateRequest:
		return to == kindNode
	case kindSecret:
		return to == kindPod || to == kindPV
	case kindConfigMap, kindPVC, kindServiceAccount, kindResourceClaim:
		return to == kindPod
	case kindPV:
		return to == kindPVC
	}
	return false
}

// keys lists the live vertices by name.
func (g *graph) keys() map[key]uint32 {
	m := map[key]uint32{}
	for id := range g.n {
		if g.vx(id).live() {
			m[g.keyOf(id)] = id
		}
	}
	return m
}

// check verifies every invariant the graph relies on: the hash chains and
// the vertices agree, edges are symmetric and follow the graph's shape,
// no vertex is left without edges, single-edge vertices have exactly one,
// plain-edge counts and destination indexes are exact, and sets are in
// the representation their size calls for.
func (g *graph) check() error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	live := 0
	for id := range g.n {
		v := g.vx(id)
		if !v.live() {
			continue
		}
		live++
		if got, ok := g.lookup(g.keyOf(id)); !ok || got != id {
			fail("vertex %d %v: lookup finds %d, %v", id, v.key, got, ok)
		}
		if v.out.len() == 0 && v.in.len() == 0 {
			fail("vertex %d %v has no edges", id, v.key)
		}
		for _, s := range []*idSet{&v.out, &v.in} {
			if s.large != nil && (s.small != nil || len(s.large) <= smallSetMax/2) {
				fail("vertex %d %v: large set of %d", id, v.key, len(s.large))
			}
			if len(s.small) > smallSetMax {
				fail("vertex %d %v: small set of %d", id, v.key, len(s.small))
			}
			seen := map[uint32]bool{}
			for _, x := range s.small {
				if seen[x] {
					fail("vertex %d %v: duplicate %d", id, v.key, x)
				}
				seen[x] = true
			}
		}
		plain := int32(0)
		dest := map[uint32]int32{}
		v.out.each(func(t uint32) bool {
			tv := g.vx(t)
			switch {
			case !tv.live():
				fail("edge %v -> dead %d", v.key, t)
			case !tv.in.has(id):
				fail("edge %v -> %v missing from in", v.key, tv.key)
			case !edgeAllowed(v.key.kind, tv.key.kind):
				fail("edge %v -> %v has the wrong shape", v.key, tv.key)
			}
			if d, ok := g.destination(t); ok {
				dest[d]++
			} else {
				plain++
			}
			return true
		})
		if plain != v.plain {
			fail("vertex %v: plain %d, counted %d", v.key, v.plain, plain)
		}
		if v.dest != nil && !maps.Equal(dest, v.dest) {
			fail("vertex %v: index %v, counted %v", v.key, v.dest, dest)
		}
		if v.out.len() >= indexMin && v.dest == nil {
			fail("vertex %v: %d edges and no index", v.key, v.out.len())
		}
		v.in.each(func(s uint32) bool {
			if !g.vx(s).live() || !g.vx(s).out.has(id) {
				fail("edge %d -> %v missing from out", s, v.key)
			}
			return true
		})
		switch v.key.kind {
		case kindPod, kindVolumeAttachment, kindResourceSlice, kindPodCertificateRequest, kindPV:
			if v.out.len() != 1 {
				fail("vertex %v has %d edges out", v.key, v.out.len())
			}
		}
	}
	if live != g.count {
		fail("%d live vertices, count %d", live, g.count)
	}
	chained := 0
	for _, head := range g.heads {
		for id := head; id != none; id = g.vx(id).next {
			chained++
			if !g.vx(id).live() {
				fail("hash chain holds free slot %d", id)
			}
		}
	}
	if chained != live {
		fail("%d vertices chained, %d live", chained, live)
	}
	refs := make([]int32, len(g.nsRefs))
	refs[0] = 1
	for id := range g.n {
		if v := g.vx(id); v.live() {
			refs[v.key.ns]++
		}
	}
	for ns, want := range refs {
		if g.nsRefs[ns] != want {
			fail("namespace %d %q: %d refs, counted %d", ns, g.nsNames[ns], g.nsRefs[ns], want)
		}
		if want > 0 && g.nsIDs[g.nsNames[ns]] != uint32(ns) {
			fail("namespace %d %q not found by name", ns, g.nsNames[ns])
		}
	}
	if len(g.nsIDs) != len(g.nsNames)-len(g.nsFree) {
		fail("%d namespaces named, %d numbered, %d free", len(g.nsIDs), len(g.nsNames), len(g.nsFree))
	}
	freed := map[uint32]bool{}
	for _, id := range g.free {
		if g.vx(id).live() || freed[id] {
			fail("free list holds %d twice or alive", id)
		}
		freed[id] = true
	}
	if live+len(g.free) != int(g.n) {
		fail("%d live + %d free != %d", live, len(g.free), g.n)
	}
	return errors.Join(errs...)
}

// podSpec builds a pod: options change it.
func testPod(namespace, name, nodeName string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID(namespace + "/" + name)},
		Spec:       corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "c"}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withSA(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.ServiceAccountName = name }
}

func withVolume(v corev1.VolumeSource) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: fmt.Sprintf("v%d", len(p.Spec.Volumes)), VolumeSource: v})
	}
}

func withSecretVolume(name string) func(*corev1.Pod) {
	return withVolume(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}})
}

func withConfigMapVolume(name string) func(*corev1.Pod) {
	return withVolume(corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
}

func withClaim(name string) func(*corev1.Pod) {
	return withVolume(corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}})
}

func withEnvSecret(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Env = append(c.Env, corev1.EnvVar{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: "k"}}})
	}
}

func mirror(p *corev1.Pod) {
	p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
}

func testPV(name, claimNS, claim string, src corev1.PersistentVolumeSource) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: src}}
	if claim != "" {
		pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: claimNS, Name: claim}
	}
	return pv
}

func csiPV(name, claimNS, claim, driver string, nodeSecret *corev1.SecretReference) *corev1.PersistentVolume {
	return testPV(name, claimNS, claim, corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: name, NodePublishSecretRef: nodeSecret}})
}

func testVA(name, nodeName string) *storagev1.VolumeAttachment {
	return &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.VolumeAttachmentSpec{NodeName: nodeName}}
}

func testSlice(name, nodeName string) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if nodeName != "" {
		s.Spec.NodeName = &nodeName
	}
	return s
}

func testPCR(namespace, name, nodeName string) *certificatesv1.PodCertificateRequest {
	return &certificatesv1.PodCertificateRequest{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: certificatesv1.PodCertificateRequestSpec{NodeName: types.NodeName(nodeName)}}
}

func testCSIDriver(name string, audiences ...string) *storagev1.CSIDriver {
	d := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, a := range audiences {
		d.Spec.TokenRequests = append(d.Spec.TokenRequests, storagev1.TokenRequest{Audience: a})
	}
	return d
}

func secretRef(namespace, name string) *corev1.SecretReference {
	return &corev1.SecretReference{Namespace: namespace, Name: name}
}
