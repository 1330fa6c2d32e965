package node

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func refStrings(refs []ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.kind.String()+"/"+r.name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestPodRefsVolumeTypes(t *testing.T) {
	lor := func(n string) *corev1.LocalObjectReference { return &corev1.LocalObjectReference{Name: n} }
	tests := []struct {
		name string
		src  corev1.VolumeSource
		want []string
	}{
		{"secret", corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}, []string{"secret/s"}},
		{"configmap", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: *lor("c")}}, []string{"configmap/c"}},
		{"projected", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{Secret: &corev1.SecretProjection{LocalObjectReference: *lor("s")}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: *lor("c")}},
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "a"}},
			{DownwardAPI: &corev1.DownwardAPIProjection{}},
		}}}, []string{"configmap/c", "secret/s"}},
		{"claim", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}, []string{"pvc/c"}},
		{"ephemeral", corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}, []string{"pvc/p-v0"}},
		{"csi", corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: lor("s")}}, []string{"secret/s"}},
		{"csi without secret", corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d"}}, nil},
		{"azure file", corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "s"}}, []string{"secret/s"}},
		{"cephfs", corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"cinder", corev1.VolumeSource{Cinder: &corev1.CinderVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"flex", corev1.VolumeSource{FlexVolume: &corev1.FlexVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"rbd", corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"scaleio", corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"iscsi", corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"storageos", corev1.VolumeSource{StorageOS: &corev1.StorageOSVolumeSource{SecretRef: lor("s")}}, []string{"secret/s"}},
		{"empty names are skipped", corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}, nil},
		{"host path uses nothing", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPod("ns", "p", "n", withVolume(tt.src))
			if diff := cmp.Diff(tt.want, refStrings(podRefs(nil, p))); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodRefsContainersAndClaims(t *testing.T) {
	env := func(prefix string) corev1.Container {
		return corev1.Container{
			Name: prefix,
			EnvFrom: []corev1.EnvFromSource{
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: prefix + "-sf"}}},
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: prefix + "-cf"}}},
			},
			Env: []corev1.EnvVar{
				{Name: "a", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: prefix + "-sk"}}}},
				{Name: "b", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: prefix + "-ck"}}}},
				{Name: "c", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "d", Value: "plain"},
			},
		}
	}
	p := testPod("ns", "p", "n", withSA("sa"), func(p *corev1.Pod) {
		p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}, {Name: ""}}
		p.Spec.InitContainers = []corev1.Container{env("init")}
		p.Spec.Containers = []corev1.Container{env("main")}
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(env("eph"))}}
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{
			{Name: "a", ResourceClaimName: ptr.To("claim-a")},
			{Name: "b", ResourceClaimTemplateName: ptr.To("tmpl")},
			{Name: "c", ResourceClaimTemplateName: ptr.To("tmpl")},
			{Name: "d", ResourceClaimTemplateName: ptr.To("tmpl")},
		}
		p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{
			{Name: "b", ResourceClaimName: ptr.To("p-b-xyz")},
			{Name: "c"}, // no claim was needed
		}
	})
	var want []string
	for _, c := range []string{"init", "main", "eph"} {
		want = append(want, "secret/"+c+"-sf", "configmap/"+c+"-cf", "secret/"+c+"-sk", "configmap/"+c+"-ck")
	}
	want = append(want, "serviceaccount/sa", "secret/pull", "resourceclaim/claim-a", "resourceclaim/p-b-xyz")
	slices.SortFunc(want, strings.Compare)
	if diff := cmp.Diff(want, refStrings(podRefs(nil, p))); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

func TestPVSecrets(t *testing.T) {
	ns := "claim-ns"
	sr := func(namespace, name string) *corev1.SecretReference {
		return &corev1.SecretReference{Namespace: namespace, Name: name}
	}
	tests := []struct {
		name string
		src  corev1.PersistentVolumeSource
		want []string
	}{
		{"csi kubelet secrets only", corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
			NodeStageSecretRef: sr("a", "stage"), NodePublishSecretRef: sr("a", "publish"), NodeExpandSecretRef: sr("b", "expand"),
			ControllerPublishSecretRef: sr("a", "cp"), ControllerExpandSecretRef: sr("a", "ce"),
		}}, []string{"a/publish", "a/stage", "b/expand"}},
		{"azure file with namespace", corev1.PersistentVolumeSource{AzureFile: &corev1.AzureFilePersistentVolumeSource{SecretName: "s", SecretNamespace: ptr.To("x")}}, []string{"x/s"}},
		{"azure file without namespace", corev1.PersistentVolumeSource{AzureFile: &corev1.AzureFilePersistentVolumeSource{SecretName: "s"}}, []string{"claim-ns/s"}},
		{"cephfs defaults to the claim namespace", corev1.PersistentVolumeSource{CephFS: &corev1.CephFSPersistentVolumeSource{SecretRef: sr("", "s")}}, []string{"claim-ns/s"}},
		{"cephfs with namespace", corev1.PersistentVolumeSource{CephFS: &corev1.CephFSPersistentVolumeSource{SecretRef: sr("x", "s")}}, []string{"x/s"}},
		{"cinder keeps its namespace", corev1.PersistentVolumeSource{Cinder: &corev1.CinderPersistentVolumeSource{SecretRef: sr("", "s")}}, []string{"/s"}},
		{"flex", corev1.PersistentVolumeSource{FlexVolume: &corev1.FlexPersistentVolumeSource{SecretRef: sr("", "s")}}, []string{"claim-ns/s"}},
		{"rbd", corev1.PersistentVolumeSource{RBD: &corev1.RBDPersistentVolumeSource{SecretRef: sr("x", "s")}}, []string{"x/s"}},
		{"scaleio", corev1.PersistentVolumeSource{ScaleIO: &corev1.ScaleIOPersistentVolumeSource{SecretRef: sr("", "s")}}, []string{"claim-ns/s"}},
		{"iscsi", corev1.PersistentVolumeSource{ISCSI: &corev1.ISCSIPersistentVolumeSource{SecretRef: sr("", "s")}}, []string{"claim-ns/s"}},
		{"storageos", corev1.PersistentVolumeSource{StorageOS: &corev1.StorageOSPersistentVolumeSource{SecretRef: &corev1.ObjectReference{Namespace: "x", Name: "s"}}}, []string{"x/s"}},
		{"empty name", corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{NodePublishSecretRef: sr("a", "")}}, nil},
		{"nfs", corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			pvSecrets(testPV("pv", ns, "c", tt.src), func(namespace, name string) { got = append(got, namespace+"/"+name) })
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
		})
	}
}
