package node

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"
)

type relation struct {
	node string
	kind kind
	ns   string
	name string
	want bool
}

func checkRelations(t *testing.T, a *Authorizer, rels []relation) {
	t.Helper()
	if err := a.g.check(); err != nil {
		t.Fatalf("graph invariant: %v", err)
	}
	for _, r := range rels {
		if got := a.related(r.node, r.kind, r.ns, r.name); got != r.want {
			t.Errorf("related(%s, %v %s/%s) = %v, want %v", r.node, r.kind, r.ns, r.name, got, r.want)
		}
	}
}

func TestPodLifecycle(t *testing.T) {
	a := newTestAuthorizer(t, Options{})

	// An unbound pod adds nothing.
	a.Upsert(testPod("ns", "p", "", withSecretVolume("s1"), withSA("sa")))
	if a.g.len() != 0 {
		t.Fatalf("unbound pod made vertices: %v", a.g.keys())
	}

	a.Upsert(testPod("ns", "p", "n1", withSecretVolume("s1"), withSA("sa")))
	checkRelations(t, a, []relation{
		{"n1", kindPod, "ns", "p", true},
		{"n1", kindSecret, "ns", "s1", true},
		{"n1", kindServiceAccount, "ns", "sa", true},
		{"n2", kindSecret, "ns", "s1", false},
		{"n1", kindSecret, "other", "s1", false},
	})

	// Rebinding moves every edge to the new node.
	a.Upsert(testPod("ns", "p", "n2", withSecretVolume("s1"), withSA("sa")))
	checkRelations(t, a, []relation{
		{"n1", kindPod, "ns", "p", false},
		{"n1", kindSecret, "ns", "s1", false},
		{"n2", kindPod, "ns", "p", true},
		{"n2", kindSecret, "ns", "s1", true},
		{"n2", kindServiceAccount, "ns", "sa", true},
	})
	if _, ok := a.g.lookup(key{kind: kindNode, name: "n1"}); ok {
		t.Error("node n1 kept a vertex without edges")
	}

	// Changing the volumes changes only the edges that differ.
	a.Upsert(testPod("ns", "p", "n2", withSecretVolume("s2"), withConfigMapVolume("cm"), withSA("sa")))
	checkRelations(t, a, []relation{
		{"n2", kindSecret, "ns", "s1", false},
		{"n2", kindSecret, "ns", "s2", true},
		{"n2", kindConfigMap, "ns", "cm", true},
	})
	if _, ok := a.g.lookup(key{kind: kindSecret, namespace: "ns", name: "s1"}); ok {
		t.Error("secret s1 kept a vertex without edges")
	}

	// Deleting the pod leaves nothing behind.
	a.Delete(testPod("ns", "p", ""))
	checkRelations(t, a, []relation{{"n2", kindSecret, "ns", "s2", false}})
	if a.g.len() != 0 {
		t.Fatalf("vertices left after delete: %v", a.g.keys())
	}
}

func TestPodUnboundAfterBound(t *testing.T) {
	// The API never unbinds a pod; a missed delete followed by a new
	// unbound pod of the same name must still drop the old edges.
	a := newTestAuthorizer(t, Options{})
	a.Upsert(testPod("ns", "p", "n1", withSecretVolume("s")))
	a.Upsert(testPod("ns", "p", ""))
	checkRelations(t, a, []relation{{"n1", kindSecret, "ns", "s", false}})
}

func TestSharedObjects(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	a.Upsert(testPod("ns", "a", "n1", withSecretVolume("shared"), withEnvSecret("shared")))
	a.Upsert(testPod("ns", "b", "n1", withSecretVolume("shared")))
	a.Upsert(testPod("ns", "c", "n2", withSecretVolume("shared")))
	checkRelations(t, a, []relation{
		{"n1", kindSecret, "ns", "shared", true},
		{"n2", kindSecret, "ns", "shared", true},
	})
	a.Delete(testPod("ns", "a", "n1"))
	checkRelations(t, a, []relation{
		{"n1", kindSecret, "ns", "shared", true},
		{"n2", kindSecret, "ns", "shared", true},
	})
	a.Delete(testPod("ns", "c", "n2"))
	checkRelations(t, a, []relation{
		{"n1", kindSecret, "ns", "shared", true},
		{"n2", kindSecret, "ns", "shared", false},
	})
	// b stops using it: the secret is gone.
	a.Upsert(testPod("ns", "b", "n1"))
	checkRelations(t, a, []relation{{"n1", kindSecret, "ns", "shared", false}})
}

func TestMirrorPodGrantsNothing(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	a.Upsert(testPod("ns", "m", "n1", mirror, withSecretVolume("s"), withSA("sa"), withClaim("c")))
	checkRelations(t, a, []relation{
		{"n1", kindPod, "ns", "m", true},
		{"n1", kindSecret, "ns", "s", false},
		{"n1", kindServiceAccount, "ns", "sa", false},
		{"n1", kindPVC, "ns", "c", false},
	})
}

func TestEphemeralContainerAndClaimStatus(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	p := testPod("ns", "p", "n1", func(p *corev1.Pod) {
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{
			{Name: "direct", ResourceClaimName: ptr.To("rc-direct")},
			{Name: "tmpl", ResourceClaimTemplateName: ptr.To("template")},
		}
	})
	a.Upsert(p)
	checkRelations(t, a, []relation{
		{"n1", kindResourceClaim, "ns", "rc-direct", true},
		{"n1", kindResourceClaim, "ns", "template", false},
	})

	p = p.DeepCopy()
	p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "tmpl", ResourceClaimName: ptr.To("p-tmpl-x1")}}
	p.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "p-extended"}
	p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name:    "debug",
		EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "debug-secret"}}}},
	}}}
	a.Upsert(p)
	checkRelations(t, a, []relation{
		{"n1", kindResourceClaim, "ns", "rc-direct", true},
		{"n1", kindResourceClaim, "ns", "p-tmpl-x1", true},
		{"n1", kindResourceClaim, "ns", "p-extended", true},
		{"n1", kindSecret, "ns", "debug-secret", true},
	})
}

func TestPersistentVolumePaths(t *testing.T) {
	visible := &corev1.CSIPersistentVolumeSource{
		Driver:                     "d",
		VolumeHandle:               "h",
		NodePublishSecretRef:       secretRef("ns", "publish"),
		NodeStageSecretRef:         secretRef("ns", "stage"),
		NodeExpandSecretRef:        secretRef("other", "expand"),
		ControllerPublishSecretRef: secretRef("ns", "controller-publish"),
		ControllerExpandSecretRef:  secretRef("ns", "controller-expand"),
	}
	for _, podFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("pod first %v", podFirst), func(t *testing.T) {
			a := newTestAuthorizer(t, Options{})
			pod := testPod("ns", "p", "n1", withClaim("c"))
			pv := testPV("pv", "ns", "c", corev1.PersistentVolumeSource{CSI: visible})
			if podFirst {
				a.Upsert(pod)
				a.Upsert(pv)
			} else {
				a.Upsert(pv)
				a.Upsert(pod)
			}
			checkRelations(t, a, []relation{
				{"n1", kindPVC, "ns", "c", true},
				{"n1", kindPV, "", "pv", true},
				{"n1", kindSecret, "ns", "publish", true},
				{"n1", kindSecret, "ns", "stage", true},
				{"n1", kindSecret, "other", "expand", true},
				{"n1", kindSecret, "ns", "controller-publish", false},
				{"n1", kindSecret, "ns", "controller-expand", false},
				{"n2", kindPV, "", "pv", false},
				{"n2", kindSecret, "ns", "publish", false},
			})

			// Rebinding the volume to another claim cuts the path.
			a.Upsert(testPV("pv", "ns", "other-claim", corev1.PersistentVolumeSource{CSI: visible}))
			checkRelations(t, a, []relation{
				{"n1", kindPVC, "ns", "c", true},
				{"n1", kindPV, "", "pv", false},
				{"n1", kindSecret, "ns", "publish", false},
			})
			a.Upsert(pv)
			a.Delete(pv)
			checkRelations(t, a, []relation{
				{"n1", kindPVC, "ns", "c", true},
				{"n1", kindPV, "", "pv", false},
				{"n1", kindSecret, "ns", "publish", false},
			})
			a.Delete(pod)
			if a.g.len() != 0 {
				t.Fatalf("vertices left: %v", a.g.keys())
			}
		})
	}
}

func TestSharedPVSecret(t *testing.T) {
	// One secret behind many volumes, only one of them used on n1.
	a := newTestAuthorizer(t, Options{})
	for i := range 40 {
		a.Upsert(csiPV(fmt.Sprintf("pv%d", i), "ns", fmt.Sprintf("c%d", i), "d", secretRef("ns", "shared")))
	}
	checkRelations(t, a, []relation{{"n1", kindSecret, "ns", "shared", false}})
	a.Upsert(testPod("ns", "p", "n1", withClaim("c33")))
	checkRelations(t, a, []relation{
		{"n1", kindSecret, "ns", "shared", true},
		{"n2", kindSecret, "ns", "shared", false},
	})
}

func TestSingleEdgeObjects(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	a.Upsert(testVA("va", "n1"))
	a.Upsert(testSlice("slice", "n1"))
	a.Upsert(testPCR("ns", "pcr", "n1"))
	checkRelations(t, a, []relation{
		{"n1", kindVolumeAttachment, "", "va", true},
		{"n1", kindResourceSlice, "", "slice", true},
		{"n1", kindPodCertificateRequest, "ns", "pcr", true},
		{"n2", kindVolumeAttachment, "", "va", false},
	})
	a.Upsert(testVA("va", "n2"))
	a.Upsert(testSlice("slice", ""))
	checkRelations(t, a, []relation{
		{"n1", kindVolumeAttachment, "", "va", false},
		{"n2", kindVolumeAttachment, "", "va", true},
		{"n1", kindResourceSlice, "", "slice", false},
		{"n1", kindPodCertificateRequest, "ns", "pcr", true},
	})
	a.Delete(testVA("va", ""))
	a.Delete(testPCR("ns", "pcr", ""))
	if a.g.len() != 0 {
		t.Fatalf("vertices left: %v", a.g.keys())
	}
}

func TestDestinationIndex(t *testing.T) {
	// A config map mounted by many pods on many nodes gets an index; as
	// the pods go, it loses it. Decisions are right all along.
	a := newTestAuthorizer(t, Options{})
	const pods = 3 * indexMin
	for i := range pods {
		a.Upsert(testPod("ns", fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i%5), withConfigMapVolume("kube-root-ca.crt")))
	}
	cm, _ := a.g.lookup(key{kind: kindConfigMap, namespace: "ns", name: "kube-root-ca.crt"})
	if a.g.vx(cm).dest == nil {
		t.Fatal("no index on a vertex with many edges")
	}
	checkRelations(t, a, []relation{
		{"n0", kindConfigMap, "ns", "kube-root-ca.crt", true},
		{"n4", kindConfigMap, "ns", "kube-root-ca.crt", true},
		{"n5", kindConfigMap, "ns", "kube-root-ca.crt", false},
	})
	for i := range pods - 2 {
		a.Delete(testPod("ns", fmt.Sprintf("p%d", i), ""))
		if err := a.g.check(); err != nil {
			t.Fatalf("after deleting p%d: %v", i, err)
		}
	}
	if a.g.vx(cm).dest != nil {
		t.Error("index kept on a vertex with few edges")
	}
	// p46 on n1, p47 on n2 are left.
	checkRelations(t, a, []relation{
		{"n1", kindConfigMap, "ns", "kube-root-ca.crt", true},
		{"n2", kindConfigMap, "ns", "kube-root-ca.crt", true},
		{"n0", kindConfigMap, "ns", "kube-root-ca.crt", false},
	})
}

func TestUpsertUnchangedIsStable(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	p := testPod("ns", "p", "n1", withSecretVolume("s"), withSA("sa"), withClaim("c"))
	a.Upsert(p)
	before := map[key]uint32{}
	for k, id := range a.g.keys() {
		before[k] = id
	}
	for range 3 {
		a.Upsert(p.DeepCopy())
	}
	if a.g.len() != len(before) {
		t.Fatalf("vertices changed: %v, want %v", a.g.keys(), before)
	}
	for k, id := range before {
		if got, _ := a.g.lookup(k); got != id {
			t.Errorf("vertex %v renumbered", k)
		}
	}
}

func TestIgnoresOtherObjects(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	a.Upsert(&corev1.Secret{})
	a.Upsert(&corev1.Node{})
	a.Delete(&corev1.ConfigMap{})
	a.Upsert(nil)
	a.Delete(nil)
	if a.g.len() != 0 {
		t.Fatal("vertices from ignored objects")
	}
}

func TestIDSet(t *testing.T) {
	var s idSet
	const n = 3 * smallSetMax
	for i := range uint32(n) {
		if !s.add(i) || s.add(i) {
			t.Fatalf("add %d", i)
		}
	}
	if s.large == nil || s.len() != n {
		t.Fatalf("large set: %d", s.len())
	}
	for i := range uint32(n) {
		if !s.has(i) {
			t.Fatalf("missing %d", i)
		}
	}
	for i := range uint32(n - 2) {
		if !s.remove(i) || s.remove(i) {
			t.Fatalf("remove %d", i)
		}
	}
	if s.large != nil || s.len() != 2 || !s.has(n-1) || !s.has(n-2) {
		t.Fatalf("shrunk set: %+v", s)
	}
	s.remove(n - 1)
	s.remove(n - 2)
	if s.len() != 0 || s.small != nil {
		t.Fatalf("empty set: %+v", s)
	}
}

// TestConcurrentUse changes the graph from two writers while two readers
// decide. The readers' decisions about pods no writer touches never
// change; once the writers are done, every decision equals that of an
// authorizer given the final pods one by one. Run with -race too.
func TestConcurrentUse(t *testing.T) {
	a := newTestAuthorizer(t, Options{})
	a.Upsert(testPod("fixed", "p", "n1", withSecretVolume("always"), withSA("sa")))
	allowed := req(node1, "get", "", "secrets", "", "fixed", "always")
	unrelated := req(node1, "get", "", "secrets", "", "fixed", "never")

	// pod is the i-th write of writer w: writers own disjoint pod names.
	pod := func(w, i int) *corev1.Pod {
		return testPod("ns", fmt.Sprintf("w%d-p%d", w, i%10), fmt.Sprintf("n%d", i%3), withSecretVolume(fmt.Sprintf("s%d", i%7)), withSA("sa"))
	}
	const writes = 500
	deleted := func(i int) bool { return i%5 == 0 }

	done := make(chan struct{})
	var readers, writers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			churned := req(node1, "get", "", "secrets", "", "ns", "s3")
			for {
				if d, _, err := a.Authorize(context.Background(), allowed); d != authorizer.DecisionAllow || err != nil {
					t.Errorf("secret of an untouched pod: %v %v, want allowed", d, err)
					return
				}
				if d, _, _ := a.Authorize(context.Background(), unrelated); d == authorizer.DecisionAllow {
					t.Error("a secret no pod uses is allowed")
					return
				}
				a.Authorize(context.Background(), churned)
				a.AudienceAllowed("n1", "ns", "sa", "aud", nil)
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	for w := range 2 {
		writers.Go(func() {
			for i := range writes {
				if deleted(i) {
					a.Delete(pod(w, i))
				} else {
					a.Upsert(pod(w, i))
				}
			}
		})
	}
	writers.Wait()
	close(done)
	readers.Wait()

	// The same final pods, given one by one.
	want := newTestAuthorizer(t, Options{})
	want.Upsert(testPod("fixed", "p", "n1", withSecretVolume("always"), withSA("sa")))
	for w := range 2 {
		last := map[string]int{}
		for i := range writes {
			last[pod(w, i).Name] = i
		}
		for _, i := range last {
			if !deleted(i) {
				want.Upsert(pod(w, i))
			}
		}
	}
	for n := range 3 {
		u := &user.DefaultInfo{Name: fmt.Sprintf("system:node:n%d", n), Groups: []string{"system:nodes"}}
		for s := range 7 {
			for _, ns := range []string{"ns", "fixed"} {
				attrs := req(u, "get", "", "secrets", "", ns, fmt.Sprintf("s%d", s))
				got, _, _ := a.Authorize(context.Background(), attrs)
				exp, _, _ := want.Authorize(context.Background(), attrs)
				if got != exp {
					t.Errorf("n%d get secret %s/s%d: %v after concurrent writes, %v after the same writes in order", n, ns, s, got, exp)
				}
			}
		}
		for p := range 10 {
			for w := range 2 {
				attrs := req(u, "get", "", "pods", "", "ns", fmt.Sprintf("w%d-p%d", w, p))
				got, _, _ := a.Authorize(context.Background(), attrs)
				exp, _, _ := want.Authorize(context.Background(), attrs)
				if got != exp {
					t.Errorf("n%d get pod ns/w%d-p%d: %v after concurrent writes, %v after the same writes in order", n, w, p, got, exp)
				}
			}
		}
	}
	if got, exp := a.g.len(), want.g.len(); got != exp {
		t.Errorf("graph of %d vertices after concurrent writes, %d after the same writes in order", got, exp)
	}
}
