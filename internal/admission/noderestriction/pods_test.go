package noderestriction

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestMirrorPodCreate(t *testing.T) {
	s := newStore()
	s.fail["n-fail"] = true
	p := newPlugin(t, s, Options{})
	create := func(pod *corev1.Pod) *admission.Attributes {
		return req(admission.Create, "v1/pods", "", "ns", pod.Name, pod, nil)
	}
	const prefix = `pods "p" is forbidden: `
	runAdmit(t, p, []admitCase{
		{name: "mirror pod bound to self", a: create(mirrorPod())},
		{name: "owner blockOwnerDeletion false", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].BlockOwnerDeletion = ptr.To(false) }))},
		{name: "downward API and image volumes", a: create(mirrorPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{
				{Name: "d", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{}}},
				{Name: "pd", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{DownwardAPI: &corev1.DownwardAPIProjection{}}}}}},
				{Name: "i", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "img"}}},
				{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}},
			}
		}))},
		{name: "normal pod", a: create(boundPod("p", "n1")),
			want: prefix + `pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`},
		{name: "mirror pod bound to another node", a: create(mirrorPod(func(p *corev1.Pod) { p.Spec.NodeName = "n2" })),
			want: prefix + `node "n1" can only create pods with spec.nodeName set to itself`},
		{name: "mirror pod unbound", a: create(mirrorPod(func(p *corev1.Pod) { p.Spec.NodeName = "" })),
			want: prefix + `node "n1" can only create pods with spec.nodeName set to itself`},
		{name: "no owner reference", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences = nil })),
			want: prefix + `node "n1" can only create pods with an owner reference set to itself`},
		{name: "two owner references", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences = append(p.OwnerReferences, p.OwnerReferences[0]) })),
			want: prefix + `node "n1" can only create pods with a single owner reference set to itself`},
		{name: "owner of another kind", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].Kind = "ReplicaSet" })),
			want: prefix + `node "n1" can only create pods with an owner reference set to itself`},
		{name: "owner of another version", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].APIVersion = "v2" })),
			want: prefix + `node "n1" can only create pods with an owner reference set to itself`},
		{name: "owner another node", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].Name = "n2" })),
			want: prefix + `node "n1" can only create pods with an owner reference set to itself`},
		{name: "owner not controller", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].Controller = nil })),
			want: prefix + `node "n1" can only create pods with a controller owner reference set to itself`},
		{name: "owner controller false", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].Controller = ptr.To(false) })),
			want: prefix + `node "n1" can only create pods with a controller owner reference set to itself`},
		{name: "owner blocks deletion", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].BlockOwnerDeletion = ptr.To(true) })),
			want: prefix + `node "n1" must not set blockOwnerDeletion on an owner reference`},
		{name: "owner UID mismatch", a: create(mirrorPod(func(p *corev1.Pod) { p.OwnerReferences[0].UID = "stale" })),
			want: prefix + `node n1 UID mismatch: expected stale got n1-uid`},
		{name: "node not registered", a: by(nodeUser("n3"), create(mirrorPod(func(p *corev1.Pod) {
			p.Spec.NodeName, p.OwnerReferences[0].Name = "n3", "n3"
		}))), want: `node "n3" not found`},
		{name: "node lookup fails", a: by(nodeUser("n-fail"), create(mirrorPod(func(p *corev1.Pod) {
			p.Spec.NodeName, p.OwnerReferences[0].Name = "n-fail", "n-fail"
		}))), want: prefix + `error looking up node n-fail to verify uid: boom`},
		{name: "not a pod", a: req(admission.Create, "v1/pods", "", "ns", "p", &corev1.Node{}, nil),
			want: prefix + `unexpected type *v1.Node`},
		{name: "nil pod", a: req(admission.Create, "v1/pods", "", "ns", "p", (*corev1.Pod)(nil), nil),
			want: prefix + `unexpected type *v1.Pod`},
		{name: "generated name shown", a: create(mirrorPod(func(p *corev1.Pod) { p.Name, p.GenerateName, p.Spec.NodeName = "", "gen-", "n2" })),
			want: `pods "gen-" is forbidden: node "n1" can only create pods with spec.nodeName set to itself`},
	})
}

func TestMirrorPodReferences(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	vol := func(s corev1.VolumeSource) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: s}} }
	}
	proj := func(s corev1.VolumeProjection) func(*corev1.Pod) {
		return vol(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{s}}})
	}
	env := func(e corev1.EnvVar) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{e} }
	}
	local := corev1.LocalObjectReference{Name: "x"}
	cases := []struct {
		name     string
		mutate   func(*corev1.Pod)
		resource string // "" admits
	}{
		{"service account", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "default" }, "serviceaccounts"},
		{"image pull secret", func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{local} }, "secrets"},
		{"empty image pull secret", func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{}} }, ""},
		{"env secret", env(corev1.EnvVar{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: local}}}), "secrets"},
		{"envFrom secret in init container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: local}}}}}
		}, "secrets"},
		{"env secret in ephemeral container", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e",
				Env: []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: local}}}}}}}
		}, "secrets"},
		{"env config map", env(corev1.EnvVar{Name: "E", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: local}}}), "configmaps"},
		{"envFrom config map", func(p *corev1.Pod) {
			p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: local}}}
		}, "configmaps"},
		{"env field ref", env(corev1.EnvVar{Name: "E", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}), ""},
		{"resource claim", func(p *corev1.Pod) { p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu"}} }, "resourceclaims"},
		{"secret volume", vol(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}), "secrets"},
		{"secret volume without name", vol(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}), "secrets (via secret volumes)"},
		{"config map volume", vol(corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: local}}), "configmaps"},
		{"config map volume without name", vol(corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}), "configmaps (via configmap volumes)"},
		{"CSI volume", vol(corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d"}}), "csidrivers (via CSI volumes)"},
		{"CSI volume with secret", vol(corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: &local}}), "secrets"},
		{"glusterfs volume", vol(corev1.VolumeSource{Glusterfs: &corev1.GlusterfsVolumeSource{EndpointsName: "e"}}), "endpoints (via glusterFS volumes)"},
		{"claim volume", vol(corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}), "persistentvolumeclaims"},
		{"ephemeral volume", vol(corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}), "persistentvolumeclaims (via ephemeral volumes)"},
		{"azure file volume", vol(corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "x"}}), "secrets"},
		{"azure file volume without secret", vol(corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{}}), "secrets (via azureFile volumes)"},
		{"cephfs volume with secret", vol(corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{SecretRef: &local}}), "secrets"},
		{"cephfs volume without secret", vol(corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{}}), ""},
		{"iscsi volume with secret", vol(corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{SecretRef: &local}}), "secrets"},
		{"projected secret", proj(corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: local}}), "secrets"},
		{"projected secret without name", proj(corev1.VolumeProjection{Secret: &corev1.SecretProjection{}}), "secrets (via projected volumes)"},
		{"projected config map", proj(corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: local}}), "configmaps"},
		{"projected config map without name", proj(corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{}}), "configmaps (via projected volumes)"},
		{"projected token", proj(corev1.VolumeProjection{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}), "serviceaccounts (via projected volumes)"},
		{"projected trust bundle", proj(corev1.VolumeProjection{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Name: ptr.To("b")}}), "clustertrustbundles"},
		{"projected pod certificate", proj(corev1.VolumeProjection{PodCertificate: &corev1.PodCertificateProjection{SignerName: "s/x"}}), "podcertificates"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := mirrorPod(tc.mutate)
			want := ""
			if tc.resource != "" {
				want = `pods "p" is forbidden: node "n1" can not create pods that reference ` + tc.resource
			}
			checkErr(t, p.Admit(t.Context(), req(admission.Create, "v1/pods", "", "ns", "p", pod, nil)), want, false)
		})
	}

	t.Run("unknown volume type", func(t *testing.T) {
		pod := mirrorPod(func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{{Name: "v"}} })
		checkErr(t, p.Admit(t.Context(), req(admission.Create, "v1/pods", "", "ns", "p", pod, nil)),
			`pods "p" is forbidden: unknown volume type for volume  "v"`, false)
	})
	t.Run("unknown projection", func(t *testing.T) {
		pod := mirrorPod(proj(corev1.VolumeProjection{}))
		checkErr(t, p.Admit(t.Context(), req(admission.Create, "v1/pods", "", "ns", "p", pod, nil)),
			`pods "p" is forbidden: unknown source for projected volume "v"`, false)
	})
}

func TestPodUpdateAndDelete(t *testing.T) {
	s := newStore()
	s.fail["ns/broken"] = true
	p := newPlugin(t, s, Options{})
	del := func(name string) *admission.Attributes {
		return req(admission.Delete, "v1/pods", "", "ns", name, nil, s.pods["ns/"+name])
	}
	runAdmit(t, p, []admitCase{
		{name: "delete own pod", a: del("mine")},
		{name: "delete pod of another node", a: del("theirs"),
			want: `pods "theirs" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself`},
		{name: "delete unbound pod", a: del("unbound"),
			want: `pods "unbound" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself`},
		{name: "delete missing pod", a: del("gone"), want: `pod "gone" not found`},
		{name: "delete when the lookup fails", a: del("broken"), want: `pods "broken" is forbidden: boom`},
		{name: "stored pod decides, not the old object", a: req(admission.Delete, "v1/pods", "", "ns", "theirs", nil, boundPod("theirs", "n1")),
			want: `pods "theirs" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself`},
		{name: "update own pod", a: req(admission.Update, "v1/pods", "", "ns", "mine", s.pods["ns/mine"], s.pods["ns/mine"]),
			want: `pods "mine" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods`},
		{name: "other subresource", a: req(admission.Create, "v1/pods", "binding", "ns", "mine", &corev1.Binding{}, nil),
			want: `pods "mine" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`},
		{name: "resize", a: req(admission.Update, "v1/pods", "resize", "ns", "mine", s.pods["ns/mine"], s.pods["ns/mine"]),
			want: `pods "mine" is forbidden: unexpected pod subresource "resize", only 'status' and 'eviction' are allowed`},
	})
}

func TestPodStatus(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	mine := boundPod("mine", "n1")
	with := func(mutate func(*corev1.Pod)) *corev1.Pod {
		q := mine.DeepCopy()
		mutate(q)
		return q
	}
	update := func(pod, old *corev1.Pod) *admission.Attributes {
		return req(admission.Update, "v1/pods", "status", "ns", "mine", pod, old)
	}
	labeled := with(func(p *corev1.Pod) { p.Labels = map[string]string{"a": "1"} })
	claimed := with(func(p *corev1.Pod) {
		p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("c1")}}
	})
	const prefix = `pods "mine" is forbidden: `
	runAdmit(t, p, []admitCase{
		{name: "update status of own pod", a: update(with(func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }), mine)},
		{name: "nil and empty labels are equal", a: update(with(func(p *corev1.Pod) { p.Labels = map[string]string{} }), mine)},
		{name: "same claim statuses", a: update(claimed, claimed.DeepCopy())},
		{name: "status of another node's pod", a: update(boundPod("mine", "n2"), boundPod("mine", "n2")),
			want: prefix + `node "n1" can only update pod status for pods with spec.nodeName set to itself`},
		{name: "status moving the pod to the node", a: update(mine, boundPod("mine", "")),
			want: prefix + `node "n1" can only update pod status for pods with spec.nodeName set to itself`},
		{name: "add a label", a: update(labeled, mine), want: prefix + `node "n1" cannot update labels through pod status`},
		{name: "remove a label", a: update(mine, labeled), want: prefix + `node "n1" cannot update labels through pod status`},
		{name: "change a label", a: update(with(func(p *corev1.Pod) { p.Labels = map[string]string{"a": "2"} }), labeled),
			want: prefix + `node "n1" cannot update labels through pod status`},
		{name: "add a claim status", a: update(claimed, mine), want: prefix + `node "n1" cannot update resource claim statues`},
		{name: "change a claim name", a: update(with(func(p *corev1.Pod) {
			p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("c2")}}
		}), claimed), want: prefix + `node "n1" cannot update resource claim statues`},
		{name: "drop a claim name", a: update(with(func(p *corev1.Pod) {
			p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu"}}
		}), claimed), want: prefix + `node "n1" cannot update resource claim statues`},
		{name: "extended resource claim status", a: update(with(func(p *corev1.Pod) {
			p.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "x"}
		}), mine), want: prefix + `node "n1" cannot update extended resource claim status`},
		{name: "node allocatable claim statuses", a: update(with(func(p *corev1.Pod) {
			p.Status.NodeAllocatableResourceClaimStatuses = []corev1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: "x"}}
		}), mine), want: prefix + `node "n1" cannot update node allocatable resource claim statuses`},
		{name: "create status", a: req(admission.Create, "v1/pods", "status", "ns", "mine", mine, nil),
			want: prefix + `unexpected operation "CREATE"`},
		{name: "delete status", a: req(admission.Delete, "v1/pods", "status", "ns", "mine", nil, mine),
			want: prefix + `unexpected operation "DELETE"`},
		{name: "old object missing", a: req(admission.Update, "v1/pods", "status", "ns", "mine", mine, nil),
			want: prefix + `unexpected type <nil>`},
		{name: "old object a nil pod", a: update(mine, nil), want: prefix + `unexpected type *v1.Pod`},
		{name: "new object not a pod", a: req(admission.Update, "v1/pods", "status", "ns", "mine", &corev1.Node{}, mine),
			want: prefix + `unexpected type *v1.Node`},
	})
}

func TestEviction(t *testing.T) {
	s := newStore()
	s.fail["ns/broken"] = true
	p := newPlugin(t, s, Options{})
	evict := func(op admission.Operation, name, evictionName string) *admission.Attributes {
		e := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: evictionName}}
		return req(op, "v1/pods", "eviction", "ns", name, e, nil)
	}
	runAdmit(t, p, []admitCase{
		{name: "evict own pod", a: evict(admission.Create, "mine", "mine")},
		{name: "path name wins", a: evict(admission.Create, "mine", "theirs")},
		{name: "name from the eviction", a: evict(admission.Create, "", "mine")},
		{name: "v1beta1 eviction", a: req(admission.Create, "v1/pods", "eviction", "ns", "mine",
			&policyv1beta1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "mine"}}, nil)},
		{name: "evict another node's pod", a: evict(admission.Create, "theirs", "theirs"),
			want: `pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself`},
		{name: "evict another node's pod named in the eviction", a: evict(admission.Create, "", "theirs"),
			want: `pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself`},
		{name: "evict unbound pod", a: evict(admission.Create, "unbound", "unbound"),
			want: `pods "unbound" is forbidden: node n1 can only evict pods with spec.nodeName set to itself`},
		{name: "no name anywhere", a: evict(admission.Create, "", ""),
			want: `pods "Unknown" is forbidden: could not determine pod from request data`},
		{name: "missing pod", a: evict(admission.Create, "gone", "gone"), want: `pod "gone" not found`},
		{name: "lookup fails", a: evict(admission.Create, "broken", "broken"), want: `pods "broken" is forbidden: boom`},
		{name: "update", a: evict(admission.Update, "mine", "mine"), want: `pods "mine" is forbidden: unexpected operation UPDATE`},
		{name: "delete", a: evict(admission.Delete, "mine", "mine"), want: `pods "mine" is forbidden: unexpected operation DELETE`},
		{name: "not an eviction", a: req(admission.Create, "v1/pods", "eviction", "ns", "mine", &corev1.Pod{}, nil),
			want: `pods "mine" is forbidden: unexpected type *v1.Pod`},
		{name: "nil eviction", a: req(admission.Create, "v1/pods", "eviction", "ns", "mine", (*policyv1.Eviction)(nil), nil),
			want: `pods "mine" is forbidden: unexpected type *v1.Eviction`},
	})
}
