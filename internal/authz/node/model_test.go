package node

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// model is the brute-force truth the graph is compared with: the objects
// the store holds, and relations computed from them directly.
type model struct {
	pods map[podName]*corev1.Pod
	pvs  map[string]*corev1.PersistentVolume
	// single-edge objects: key -> node
	single map[key]string
}

func newModel() *model {
	return &model{pods: map[podName]*corev1.Pod{}, pvs: map[string]*corev1.PersistentVolume{}, single: map[key]string{}}
}

var (
	modelNodes = []string{"n1", "n2", "n3"}
	modelNS    = []string{"a", "b"}
	modelNames = []string{"x", "y", "z"}
	// Many pods share few objects, so that shared objects grow past
	// indexMin and get (and lose) a destination index.
	modelPods = func() []string {
		var names []string
		for i := range 4 * indexMin {
			names = append(names, fmt.Sprintf("p%d", i))
		}
		return names
	}()
)

type relKey struct {
	node string
	key
}

// relations computes, by brute force from the objects, every (node,
// object) pair a path connects.
func (m *model) relations() map[relKey]bool {
	rel := map[relKey]bool{}
	for _, p := range m.pods {
		if p.Spec.NodeName == "" {
			continue
		}
		rel[relKey{p.Spec.NodeName, key{kindPod, p.Namespace, p.Name}}] = true
		if isMirror(p) {
			continue
		}
		for _, r := range podRefs(nil, p) {
			rel[relKey{p.Spec.NodeName, key{r.kind, p.Namespace, r.name}}] = true
		}
	}
	for _, pv := range m.pvs {
		if pv.Spec.ClaimRef == nil {
			continue
		}
		for _, node := range modelNodes {
			if !rel[relKey{node, key{kindPVC, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name}}] {
				continue
			}
			rel[relKey{node, key{kind: kindPV, name: pv.Name}}] = true
			pvSecrets(pv, func(ns, name string) { rel[relKey{node, key{kindSecret, ns, name}}] = true })
		}
	}
	for k, node := range m.single {
		rel[relKey{node, k}] = true
	}
	return rel
}

// byteSource turns fuzz input into choices; it yields zeros once spent.
type byteSource struct{ b []byte }

func (s *byteSource) pick(n int) int {
	if len(s.b) == 0 {
		return 0
	}
	v := int(s.b[0]) % n
	s.b = s.b[1:]
	return v
}

func (s *byteSource) empty() bool { return len(s.b) == 0 }

func randomPod(s *byteSource) *corev1.Pod {
	// Most pods go to one namespace and run as one account, so that the
	// account grows past indexMin pods.
	ns := "a"
	if s.pick(4) == 0 {
		ns = "b"
	}
	name := modelPods[s.pick(len(modelPods))]
	node := ""
	if i := s.pick(len(modelNodes) + 1); i > 0 {
		node = modelNodes[i-1]
	}
	p := testPod(ns, name, node)
	if s.pick(5) == 0 {
		mirror(p)
	}
	if s.pick(2) == 0 {
		p.Spec.ServiceAccountName = "x"
	} else if i := s.pick(len(modelNames) + 1); i > 0 {
		p.Spec.ServiceAccountName = modelNames[i-1]
	}
	for n := s.pick(4); n > 0; n-- {
		obj := modelNames[s.pick(len(modelNames))]
		switch s.pick(5) {
		case 0:
			withSecretVolume(obj)(p)
		case 1:
			withConfigMapVolume(obj)(p)
		case 2:
			withClaim(obj)(p)
		case 3:
			withEnvSecret(obj)(p)
		case 4:
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "e", Env: []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: obj}}}}},
			}})
		}
	}
	return p
}

func randomPV(s *byteSource) *corev1.PersistentVolume {
	name := modelNames[s.pick(len(modelNames))]
	claimNS, claim := "", ""
	if s.pick(4) > 0 {
		claimNS, claim = modelNS[s.pick(len(modelNS))], modelNames[s.pick(len(modelNames))]
	}
	var pub, ctrl *corev1.SecretReference
	if s.pick(2) == 0 {
		pub = secretRef(modelNS[s.pick(len(modelNS))], modelNames[s.pick(len(modelNames))])
	}
	if s.pick(2) == 0 {
		ctrl = secretRef(modelNS[s.pick(len(modelNS))], modelNames[s.pick(len(modelNames))])
	}
	return testPV(name, claimNS, claim, corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
		Driver: "d", VolumeHandle: name, NodePublishSecretRef: pub, ControllerPublishSecretRef: ctrl,
	}})
}

const bulkVolumes = 64

// step applies one operation chosen by s to the authorizer and the model.
func step(a *Authorizer, m *model, s *byteSource) string {
	node := func() string {
		if i := s.pick(len(modelNodes) + 1); i > 0 {
			return modelNodes[i-1]
		}
		return ""
	}
	switch s.pick(9) {
	case 8:
		// Many volumes naming one node secret: the secret's plain edges
		// outnumber a node's pods, so decisions walk back from the node.
		remove := s.pick(3) == 0
		for i := range bulkVolumes {
			name := fmt.Sprintf("bulk%d", i)
			if remove {
				a.Delete(testPV(name, "", "", corev1.PersistentVolumeSource{}))
				delete(m.pvs, name)
				continue
			}
			pv := csiPV(name, "a", modelNames[s.pick(len(modelNames))], "d", secretRef("a", "x"))
			a.Upsert(pv)
			m.pvs[name] = pv
		}
		return fmt.Sprintf("bulk volumes, remove %v", remove)
	case 0, 1, 2:
		p := randomPod(s)
		a.Upsert(p)
		m.pods[podName{p.Namespace, p.Name}] = p
		return fmt.Sprintf("upsert pod %s/%s on %q", p.Namespace, p.Name, p.Spec.NodeName)
	case 3:
		p := testPod(modelNS[s.pick(len(modelNS))], modelPods[s.pick(len(modelPods))], "")
		a.Delete(p)
		delete(m.pods, podName{p.Namespace, p.Name})
		return fmt.Sprintf("delete pod %s/%s", p.Namespace, p.Name)
	case 4:
		pv := randomPV(s)
		a.Upsert(pv)
		m.pvs[pv.Name] = pv
		return "upsert pv " + pv.Name
	case 5:
		name := modelNames[s.pick(len(modelNames))]
		a.Delete(testPV(name, "", "", corev1.PersistentVolumeSource{}))
		delete(m.pvs, name)
		return "delete pv " + name
	default:
		name, n := modelNames[s.pick(len(modelNames))], node()
		var obj runtime.Object
		var k key
		switch s.pick(3) {
		case 0:
			obj, k = testVA(name, n), key{kind: kindVolumeAttachment, name: name}
		case 1:
			obj, k = testSlice(name, n), key{kind: kindResourceSlice, name: name}
		default:
			obj, k = testPCR("a", name, n), key{kind: kindPodCertificateRequest, namespace: "a", name: name}
		}
		if s.pick(3) == 0 {
			a.Delete(obj)
			delete(m.single, k)
			return fmt.Sprintf("delete %v", k)
		}
		a.Upsert(obj)
		if n == "" {
			delete(m.single, k)
		} else {
			m.single[k] = n
		}
		return fmt.Sprintf("set %v on %q", k, n)
	}
}

// compare checks every relation of the small universe.
func compare(t testing.TB, a *Authorizer, m *model, history []string) {
	t.Helper()
	if err := a.g.check(); err != nil {
		t.Fatalf("after %v:\n%v", history, err)
	}
	want := m.relations()
	kinds := []kind{kindPod, kindSecret, kindConfigMap, kindPVC, kindPV, kindServiceAccount, kindVolumeAttachment, kindResourceSlice, kindPodCertificateRequest}
	for _, node := range append(modelNodes, "n4") {
		for _, k := range kinds {
			names := modelNames
			if k == kindPod {
				names = modelPods
			}
			for _, ns := range append(modelNS, "") {
				for _, name := range names {
					rk := relKey{node, key{kind: k, namespace: ns, name: name}}
					if got := a.g.related(node, rk.key); got != want[rk] {
						t.Fatalf("after %v:\nrelated(%s, %v) = %v, want %v", history, node, rk.key, got, want[rk])
					}
				}
			}
		}
	}
}

func runModel(t testing.TB, data []byte, weakHash bool) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.g.weakHash = weakHash
	m := newModel()
	s := &byteSource{data}
	var history []string
	for !s.empty() && len(history) < 1000 {
		history = append(history, step(a, m, s))
		compare(t, a, m, history)
	}
	// Deleting everything must leave an empty graph.
	for n := range m.pods {
		a.Delete(testPod(n.namespace, n.name, ""))
	}
	for name := range m.pvs {
		a.Delete(testPV(name, "", "", corev1.PersistentVolumeSource{}))
	}
	for k := range m.single {
		id, _ := a.g.lookup(k)
		a.g.removeVertex(id)
	}
	if a.g.len() != 0 {
		t.Fatalf("after %v and deleting everything: %v", history, a.g.keys())
	}
}

func TestGraphMatchesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		data := make([]byte, 3000)
		for j := range data {
			data[j] = byte(r.UintN(256))
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { runModel(t, data, i%4 == 3) })
	}
}

func FuzzGraph(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 2, 1, 0, 4, 0, 1, 0, 0, 2, 3, 0, 0})
	f.Add([]byte{4, 1, 1, 0, 0, 1, 0, 0, 2, 1, 1, 2, 1, 0, 5, 1, 3, 0})
	f.Add([]byte{6, 0, 1, 1, 6, 0, 2, 1, 7, 1, 0, 0, 3, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) { runModel(t, data, len(data)%2 == 1) })
}
