package node

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Run with:
//
//	go test ./internal/authz/node -run '^$' -bench . -benchmem
//
// The clusters follow kube-apiserver's own node authorizer benchmark: per
// pod a private config map, a private secret, a secret shared by the
// namespace and a private claim bound to a volume with a node secret; here
// also the namespace's kube-root-ca.crt and default service account
// through a projected token volume, as every real pod has.

// shape is a synthetic cluster.
type shape struct {
	name               string
	nodes, podsPerNode int
	namespaces         int
	attachmentsPerNode int
}

var (
	// kube-apiserver's benchmark cluster (its published figure is about
	// 0.6 µs per decision on it).
	referenceShape = shape{"500x200", 500, 200, 200, 20}
	// Issue 5's cluster: 5,000 nodes, 150,000 pods.
	largeShape = shape{"5000x30", 5000, 30, 200, 20}
)

func benchNode(n int) string           { return fmt.Sprintf("node%d", n) }
func benchNS(i int) string             { return fmt.Sprintf("ns%d", i) }
func benchPodName(n, p int) string     { return fmt.Sprintf("pod%d-node%d", p, n) }
func benchPodNS(s shape, p int) string { return benchNS(p % s.namespaces) }

// benchPod is pod p of node n.
func benchPod(s shape, n, p int) *corev1.Pod {
	name := benchPodName(n, p)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: benchPodNS(s, p), Name: name, UID: types.UID(name)},
		Spec: corev1.PodSpec{
			NodeName:           benchNode(n),
			ServiceAccountName: "default",
			Containers: []corev1.Container{{Name: "c", EnvFrom: []corev1.EnvFromSource{
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "shared-secret"}}},
			}}},
			Volumes: []corev1.Volume{
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-" + name}}}},
				{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-" + name}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "pvc-" + name}}},
				{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}}},
				}}}},
			},
		},
	}
}

func benchPV(s shape, n, p int) *corev1.PersistentVolume {
	name := benchPodName(n, p)
	return csiPV("pv-"+name, benchPodNS(s, p), "pvc-"+name, "csi.example.com", secretRef(benchPodNS(s, p), "pvsecret-"+name))
}

// populate feeds the cluster to f one object at a time, so that only the
// graph stays in memory.
func populate(s shape, f func(k8sruntime.Object)) {
	for n := range s.nodes {
		for p := range s.podsPerNode {
			f(benchPod(s, n, p))
			f(benchPV(s, n, p))
		}
		for i := range s.attachmentsPerNode {
			f(testVA(fmt.Sprintf("va%d-node%d", i, n), benchNode(n)))
		}
	}
}

var (
	built   = map[string]*Authorizer{}
	builtMu sync.Mutex
)

// benchAuthorizer builds each cluster once per test binary.
func benchAuthorizer(b *testing.B, s shape) *Authorizer {
	builtMu.Lock()
	defer builtMu.Unlock()
	if a, ok := built[s.name]; ok {
		return a
	}
	a, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	populate(s, a.Upsert)
	built[s.name] = a
	return a
}

func BenchmarkAuthorize(b *testing.B) {
	for _, s := range []shape{referenceShape, largeShape} {
		b.Run(s.name, func(b *testing.B) {
			a := benchAuthorizer(b, s)
			node0 := &user.DefaultInfo{Name: "system:node:node0", Groups: []string{"system:nodes"}}
			get := func(group, resource, ns, name string) authorizer.AttributesRecord {
				return authorizer.AttributesRecord{User: node0, Verb: "get", APIGroup: group, Resource: resource, Namespace: ns, Name: name, ResourceRequest: true}
			}
			own, other := benchPodName(0, 1), benchPodName(1, 1)
			ownNS := benchPodNS(s, 1)
			// A namespace none of node0's pods use, if there is one.
			unusedNS := benchNS(s.podsPerNode % s.namespaces)
			if s.podsPerNode >= s.namespaces {
				unusedNS = "nowhere"
			}
			tests := []struct {
				name  string
				attrs authorizer.AttributesRecord
				want  authorizer.Decision
			}{
				{"allowed configmap", get("", "configmaps", ownNS, "cm-"+own), allow},
				{"allowed secret via pod", get("", "secrets", ownNS, "secret-"+own), allow},
				{"allowed shared secret via pod", get("", "secrets", ownNS, "shared-secret"), allow},
				{"allowed kube-root-ca.crt", get("", "configmaps", ownNS, "kube-root-ca.crt"), allow},
				{"allowed secret via pv", get("", "secrets", ownNS, "pvsecret-"+own), allow},
				{"allowed pvc", get("", "persistentvolumeclaims", ownNS, "pvc-"+own), allow},
				{"allowed pv", get("", "persistentvolumes", "", "pv-"+own), allow},
				{"allowed attachment", get("storage.k8s.io", "volumeattachments", "", "va1-node0"), allow},
				{"allowed token", authorizer.AttributesRecord{User: node0, Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: ownNS, Name: "default", ResourceRequest: true}, allow},
				{"allowed own node", get("", "nodes", "", "node0"), allow},
				{"allowed static rule", authorizer.AttributesRecord{User: node0, Verb: "create", APIGroup: "authentication.k8s.io", Resource: "tokenreviews", ResourceRequest: true}, allow},
				{"disallowed configmap", get("", "configmaps", ownNS, "cm-"+other), noOpinion},
				{"disallowed secret via pv", get("", "secrets", ownNS, "pvsecret-"+other), noOpinion},
				{"disallowed shared secret", get("", "secrets", unusedNS, "shared-secret"), noOpinion},
				{"disallowed pv", get("", "persistentvolumes", "", "pv-"+other), noOpinion},
				{"disallowed attachment", get("storage.k8s.io", "volumeattachments", "", "va1-node1"), noOpinion},
				{"not a node", get("", "secrets", ownNS, "shared-secret"), noOpinion},
			}
			tests[len(tests)-1].attrs.User = &user.DefaultInfo{Name: "alice"}
			for _, tt := range tests {
				b.Run(tt.name, func(b *testing.B) {
					ctx := context.Background()
					// Boxed once: the chain hands every authorizer the same value.
					var attrs authorizer.Attributes = tt.attrs
					b.ReportAllocs()
					for b.Loop() {
						if d, _, _ := a.Authorize(ctx, attrs); d != tt.want {
							b.Fatalf("got %v, want %v", d, tt.want)
						}
					}
				})
			}
			b.Run("parallel", func(b *testing.B) {
				var attrs authorizer.Attributes = get("", "secrets", ownNS, "shared-secret")
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						a.Authorize(context.Background(), attrs)
					}
				})
			})
		})
	}
}

// BenchmarkPodEvents is the cost of one pod event on a full graph.
func BenchmarkPodEvents(b *testing.B) {
	for _, s := range []shape{referenceShape, largeShape} {
		b.Run(s.name, func(b *testing.B) {
			a := benchAuthorizer(b, s)
			newPod := func(i int) *corev1.Pod {
				p := benchPod(s, i%s.nodes, s.podsPerNode+i)
				p.Name = fmt.Sprintf("bench-%d", i)
				return p
			}
			b.Run("add", func(b *testing.B) {
				pods := make([]*corev1.Pod, b.N)
				for i := range pods {
					pods[i] = newPod(i)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for _, p := range pods {
					a.Upsert(p)
				}
				b.StopTimer()
				for _, p := range pods {
					a.Delete(p)
				}
			})
			b.Run("delete", func(b *testing.B) {
				pods := make([]*corev1.Pod, b.N)
				for i := range pods {
					pods[i] = newPod(i)
					a.Upsert(pods[i])
				}
				b.ReportAllocs()
				b.ResetTimer()
				for _, p := range pods {
					a.Delete(p)
				}
			})
			b.Run("update unchanged", func(b *testing.B) {
				// A status update: same node, same references.
				p := benchPod(s, 0, 1)
				b.ReportAllocs()
				for b.Loop() {
					a.Upsert(p)
				}
			})
			b.Run("update volumes", func(b *testing.B) {
				// Alternate between two secret volumes.
				p1, p2 := benchPod(s, 0, 1), benchPod(s, 0, 1)
				p2.Spec.Volumes[1].Secret.SecretName = "other-secret"
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if i++; i%2 == 0 {
						a.Upsert(p1)
					} else {
						a.Upsert(p2)
					}
				}
				a.Upsert(p1)
			})
			b.Run("rebind", func(b *testing.B) {
				p1, p2 := benchPod(s, 0, 1), benchPod(s, 0, 1)
				p2.Spec.NodeName = benchNode(1)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if i++; i%2 == 0 {
						a.Upsert(p1)
					} else {
						a.Upsert(p2)
					}
				}
				a.Upsert(p1)
			})
		})
	}
}

// BenchmarkGraphMemory reports the heap a graph keeps: the live heap after
// building it from objects that are dropped once fed, minus the heap
// before.
func BenchmarkGraphMemory(b *testing.B) {
	for _, s := range []shape{referenceShape, largeShape} {
		b.Run(s.name, func(b *testing.B) {
			var perPod, total float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				a, err := New(Options{})
				if err != nil {
					b.Fatal(err)
				}
				populate(s, a.Upsert)
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(a)
				pods := float64(s.nodes * s.podsPerNode)
				total = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				perPod = total / pods
				b.ReportMetric(float64(a.g.len()), "vertices")
			}
			b.ReportMetric(total/(1<<20), "MiB")
			b.ReportMetric(perPod, "B/pod")
		})
	}
}

// BenchmarkSharedVolumeSecret is the known slow path: a secret named by
// many persistent volumes (a CSI driver's one node secret) has only plain
// edges, which no index covers, so refusing it walks every volume.
func BenchmarkSharedVolumeSecret(b *testing.B) {
	const volumes = 10000
	a, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range volumes {
		name := fmt.Sprintf("v%d", i)
		a.Upsert(csiPV("pv-"+name, "ns", "pvc-"+name, "csi.example.com", secretRef("ns", "driver-secret")))
		a.Upsert(testPod("ns", "pod-"+name, benchNode(i%500), withClaim("pvc-"+name)))
	}
	for _, tt := range []struct {
		name string
		node string
		want authorizer.Decision
	}{
		{"allowed", "node0", allow},
		{"disallowed", "node-without-pods", noOpinion},
	} {
		b.Run(tt.name, func(b *testing.B) {
			a.Upsert(testVA("va", tt.node)) // make the node known
			var attrs authorizer.Attributes = authorizer.AttributesRecord{
				User: &user.DefaultInfo{Name: "system:node:" + tt.node, Groups: []string{"system:nodes"}},
				Verb: "get", Resource: "secrets", Namespace: "ns", Name: "driver-secret", ResourceRequest: true,
			}
			for b.Loop() {
				if d, _, _ := a.Authorize(context.Background(), attrs); d != tt.want {
					b.Fatalf("got %v, want %v", d, tt.want)
				}
			}
		})
	}
}
