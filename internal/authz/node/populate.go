package node

import (
	"slices"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Upsert records an object as the store now holds it: a Pod, a
// PersistentVolume, a storage/v1 VolumeAttachment or CSIDriver, a
// resource/v1 ResourceSlice or a certificates/v1 PodCertificateRequest.
// Other objects are ignored. Feeding the same object again changes
// nothing; feeding a changed one changes only the edges that differ.
func (a *Authorizer) Upsert(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		a.upsertPod(o)
	case *corev1.PersistentVolume:
		a.upsertPV(o)
	case *storagev1.VolumeAttachment:
		a.setNode(opAddVolumeAttachment, key{kind: kindVolumeAttachment, name: o.Name}, o.Spec.NodeName)
	case *resourcev1.ResourceSlice:
		nodeName := ""
		if o.Spec.NodeName != nil {
			nodeName = *o.Spec.NodeName
		}
		a.setNode(opAddResourceSlice, key{kind: kindResourceSlice, name: o.Name}, nodeName)
	case *certificatesv1.PodCertificateRequest:
		a.setNode(opAddPodCertificateRequest, key{kind: kindPodCertificateRequest, namespace: o.Namespace, name: o.Name}, string(o.Spec.NodeName))
	case *storagev1.CSIDriver:
		a.mu.Lock()
		a.aud.setCSIDriver(o)
		a.mu.Unlock()
	}
}

// Delete forgets an object of a type Upsert accepts; only its namespace
// and name are read, so a tombstone's last known state will do.
func (a *Authorizer) Delete(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		a.remove(opDeletePod, key{kind: kindPod, namespace: o.Namespace, name: o.Name})
	case *corev1.PersistentVolume:
		a.remove(opDeletePV, key{kind: kindPV, name: o.Name})
	case *storagev1.VolumeAttachment:
		a.remove(opDeleteVolumeAttachment, key{kind: kindVolumeAttachment, name: o.Name})
	case *resourcev1.ResourceSlice:
		a.remove(opDeleteResourceSlice, key{kind: kindResourceSlice, name: o.Name})
	case *certificatesv1.PodCertificateRequest:
		a.remove(opDeletePodCertificateRequest, key{kind: kindPodCertificateRequest, namespace: o.Namespace, name: o.Name})
	case *storagev1.CSIDriver:
		a.mu.Lock()
		delete(a.aud.drivers, o.Name)
		a.mu.Unlock()
	}
}

// upsertPod gives a pod bound to a node the edges pod -> node and
// object -> pod for every object it uses. An unbound pod has no edges (a
// pod that loses its node, which the API forbids, loses them). A pod bound
// to another node than before is taken out and put back, so that no edge
// or index keeps pointing at the old node; on the same node, only the
// edges that differ change, whether the pod is the same or a new one under
// the old name.
func (a *Authorizer) upsertPod(pod *corev1.Pod) {
	start := time.Now()
	a.mu.Lock()
	defer func() {
		a.mu.Unlock()
		a.metrics.since(opAddPod, start)
	}()
	g := a.g
	pk := key{kind: kindPod, namespace: pod.Namespace, name: pod.Name}
	nodeName := pod.Spec.NodeName
	pid, exists := g.lookup(pk)
	if exists {
		if n, ok := g.only(pid); !ok || g.vx(n).key.name != nodeName {
			g.removeVertex(pid)
			exists = false
		}
	}
	if nodeName == "" {
		delete(a.aud.pods, podName{pod.Namespace, pod.Name})
		return
	}
	n := g.vertexFor(key{kind: kindNode, name: nodeName})
	if !exists {
		pid = g.vertexFor(pk)
		g.addEdge(pid, n)
	}
	a.refs = a.refs[:0]
	if !isMirror(pod) {
		a.refs = podRefs(a.refs, pod)
	}
	a.ids = a.ids[:0]
	for _, r := range a.refs {
		a.ids = append(a.ids, g.vertexFor(key{kind: r.kind, namespace: pod.Namespace, name: r.name}))
	}
	slices.Sort(a.ids)
	a.ids = slices.Compact(a.ids)
	g.setIn(pid, a.ids)
	if isMirror(pod) {
		delete(a.aud.pods, podName{pod.Namespace, pod.Name})
	} else {
		a.aud.setPod(pod)
	}
}

// upsertPV gives a bound persistent volume the edges pv -> pvc and
// secret -> pv for the secrets the kubelet reads. An unbound volume has
// no edges.
func (a *Authorizer) upsertPV(pv *corev1.PersistentVolume) {
	start := time.Now()
	a.mu.Lock()
	defer func() {
		a.mu.Unlock()
		a.metrics.since(opAddPV, start)
	}()
	g := a.g
	k := key{kind: kindPV, name: pv.Name}
	claim := pv.Spec.ClaimRef
	if claim == nil {
		if id, ok := g.lookup(k); ok {
			g.removeVertex(id)
		}
		delete(a.aud.pvDrivers, pv.Name)
		return
	}
	id := g.vertexFor(k)
	g.setOut(id, g.vertexFor(key{kind: kindPVC, namespace: claim.Namespace, name: claim.Name}))
	a.ids = a.ids[:0]
	pvSecrets(pv, func(namespace, name string) {
		a.ids = append(a.ids, g.vertexFor(key{kind: kindSecret, namespace: namespace, name: name}))
	})
	slices.Sort(a.ids)
	a.ids = slices.Compact(a.ids)
	g.setIn(id, a.ids)
	if csi := pv.Spec.CSI; csi != nil && csi.Driver != "" {
		a.aud.pvDrivers[pv.Name] = csi.Driver
	} else {
		delete(a.aud.pvDrivers, pv.Name)
	}
}

// setNode gives a volume attachment, resource slice or pod certificate
// request its one edge, to its node; without a node it has none.
func (a *Authorizer) setNode(op operation, k key, nodeName string) {
	start := time.Now()
	a.mu.Lock()
	defer func() {
		a.mu.Unlock()
		a.metrics.since(op, start)
	}()
	g := a.g
	if nodeName == "" {
		if id, ok := g.lookup(k); ok {
			g.removeVertex(id)
		}
		return
	}
	id := g.vertexFor(k)
	g.setOut(id, g.vertexFor(key{kind: kindNode, name: nodeName}))
}

func (a *Authorizer) remove(op operation, k key) {
	start := time.Now()
	a.mu.Lock()
	defer func() {
		a.mu.Unlock()
		a.metrics.since(op, start)
	}()
	if id, ok := a.g.lookup(k); ok {
		a.g.removeVertex(id)
	}
	switch k.kind {
	case kindPod:
		delete(a.aud.pods, podName{k.namespace, k.name})
	case kindPV:
		delete(a.aud.pvDrivers, k.name)
	}
}
