package noderestriction

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

func tokenFor(tr *authenticationv1.TokenRequest) *admission.Attributes {
	return req(admission.Create, "v1/serviceaccounts", "token", "ns", "sa", tr, nil)
}

func TestTokenBinding(t *testing.T) {
	s := newStore()
	s.fail["ns/broken"] = true
	p := newPlugin(t, s, Options{DisableAudienceRestriction: true})
	const prefix = `serviceaccounts "sa" is forbidden: `
	secretRef := tokenRequest("mine", "mine-uid")
	secretRef.Spec.BoundObjectRef.Kind = "Secret"
	oldVersion := tokenRequest("mine", "mine-uid")
	oldVersion.Spec.BoundObjectRef.APIVersion = "v2"
	noName := tokenRequest("mine", "mine-uid")
	noName.Spec.BoundObjectRef.Name = ""
	runAdmit(t, p, []admitCase{
		{name: "token bound to own pod", a: tokenFor(tokenRequest("mine", "mine-uid", "any-audience"))},
		{name: "unbound token", a: tokenFor(tokenRequest("", "")), want: prefix + `node requested token not bound to a pod`},
		{name: "token bound to a secret", a: tokenFor(secretRef), want: prefix + `node requested token not bound to a pod`},
		{name: "token bound to another API version", a: tokenFor(oldVersion), want: prefix + `node requested token not bound to a pod`},
		{name: "token bound to an unnamed pod", a: tokenFor(noName), want: prefix + `node requested token not bound to a pod`},
		{name: "binding without uid", a: tokenFor(tokenRequest("mine", "")), want: prefix + `node requested token with a pod binding without a uid`},
		{name: "pod missing", a: tokenFor(tokenRequest("gone", "x")), want: `pod "gone" not found`},
		{name: "pod lookup fails", a: tokenFor(tokenRequest("broken", "x")), want: prefix + `boom`},
		{name: "pod recreated", a: tokenFor(tokenRequest("mine", "old-uid")),
			want: prefix + `the UID in the bound object reference (old-uid) does not match the UID in record. The object might have been deleted and then recreated`},
		{name: "pod of another node", a: tokenFor(tokenRequest("theirs", "theirs-uid")),
			want: prefix + `node requested token bound to a pod scheduled on a different node`},
		{name: "unbound pod", a: tokenFor(tokenRequest("unbound", "unbound-uid")),
			want: prefix + `node requested token bound to a pod scheduled on a different node`},
		{name: "nil token request", a: tokenFor(nil), want: prefix + `unexpected type *v1.TokenRequest`},
		{name: "not a token request", a: req(admission.Create, "v1/serviceaccounts", "token", "ns", "sa", &corev1.Pod{}, nil),
			want: prefix + `unexpected type *v1.Pod`},
		{name: "update of a service account", a: req(admission.Update, "v1/serviceaccounts", "", "ns", "sa", &corev1.ServiceAccount{}, &corev1.ServiceAccount{})},
		{name: "create of a service account", a: req(admission.Create, "v1/serviceaccounts", "", "ns", "sa", &corev1.ServiceAccount{}, nil)},
	})
}

// audienceStore holds, besides newStore's objects, pods of node n1 using
// audiences in each way a pod can, and the claims, volumes and drivers
// they lead to.
func audienceStore() *store {
	s := newStore()
	pod := func(name string, vols ...corev1.VolumeSource) {
		p := boundPod(name, "n1")
		for i, v := range vols {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "v" + string(rune('0'+i)), VolumeSource: v})
		}
		s.pods["ns/"+name] = p
	}
	projected := func(audience string) corev1.VolumeSource {
		return corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{DownwardAPI: &corev1.DownwardAPIProjection{}},
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: audience, Path: "token"}},
		}}}
	}
	csi := func(driver string) corev1.VolumeSource {
		return corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: driver}}
	}
	claim := func(name string) corev1.VolumeSource {
		return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}
	}
	pod("api-access", projected(""))
	pod("projected", projected("vault"))
	pod("inline-csi", csi("secrets.csi.example.com"))
	pod("missing-driver", csi("gone.csi.example.com"))
	pod("claim", claim("data"))
	pod("missing-claim", claim("gone"))
	pod("missing-volume", claim("orphan"))
	pod("unbound-claim", claim("pending"))
	pod("missing-claim-and-csi", claim("gone"), csi("secrets.csi.example.com"))
	pod("ephemeral", corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{}}})
	pod("azure-inline", corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{ShareName: "s", SecretName: "x"}})
	pod("azure-claim", claim("azure"))
	pod("nothing")

	for name, volume := range map[string]string{"data": "pv-data", "orphan": "pv-gone", "pending": "", "ephemeral-v0": "pv-data", "azure": "pv-azure"} {
		s.claims["ns/"+name] = &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: volume},
		}
	}
	s.volumes["pv-data"] = &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "disk.csi.example.com"}}}}
	s.volumes["pv-azure"] = &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-azure"},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{AzureFile: &corev1.AzureFilePersistentVolumeSource{ShareName: "s"}}}}
	driver := func(name string, audiences ...string) {
		d := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, a := range audiences {
			d.Spec.TokenRequests = append(d.Spec.TokenRequests, storagev1.TokenRequest{Audience: a})
		}
		s.drivers[name] = d
	}
	driver("secrets.csi.example.com", "other", "vault")
	driver("disk.csi.example.com", "storage")
	driver(azureFileDriver, "azure")
	return s
}

func TestTokenAudience(t *testing.T) {
	s := audienceStore()
	p := newPlugin(t, s, Options{})
	token := func(podName string, audiences ...string) *admission.Attributes {
		return tokenFor(tokenRequest(podName, types.UID(podName+"-uid"), audiences...))
	}
	const prefix = `serviceaccounts "sa" is forbidden: `
	notNamed := func(audience string) string {
		return prefix + `system:node:n1 is not authorized to request tokens for audience "` + audience + `"`
	}
	runAdmit(t, p, []admitCase{
		{name: "API server audience through the kube-api-access volume", a: token("api-access")},
		{name: "API server audience named explicitly", a: token("api-access", "")},
		{name: "API server audience without a token volume", a: token("nothing"), want: notNamed("")},
		{name: "projected volume audience", a: token("projected", "vault")},
		{name: "audience no volume names", a: token("projected", "other"), want: notNamed("other")},
		{name: "two audiences", a: token("projected", "vault", "vault"), want: prefix + `node may only request 0 or 1 audiences`},
		{name: "inline CSI driver audience", a: token("inline-csi", "vault")},
		{name: "inline CSI driver without the audience", a: token("inline-csi", "storage"), want: notNamed("storage")},
		{name: "inline CSI driver missing", a: token("missing-driver", "vault"),
			want: prefix + `error validating audience "vault": csidriver.storage.k8s.io "gone.csi.example.com" not found`},
		{name: "claim bound to a CSI volume", a: token("claim", "storage")},
		{name: "claim bound to a CSI volume without the audience", a: token("claim", "vault"), want: notNamed("vault")},
		{name: "claim missing", a: token("missing-claim", "storage"),
			want: prefix + `error validating audience "storage": persistentvolumeclaim "gone" not found`},
		{name: "volume missing", a: token("missing-volume", "storage"),
			want: prefix + `error validating audience "storage": persistentvolume "pv-gone" not found`},
		// kube-apiserver looks up the claim's volume even when it is unbound.
		{name: "claim not bound yet", a: token("unbound-claim", "storage"), want: prefix + `error validating audience "storage": persistentvolume "" not found`},
		{name: "claim missing, another volume names the audience", a: token("missing-claim-and-csi", "vault")},
		{name: "ephemeral volume", a: token("ephemeral", "storage")},
		{name: "ephemeral volume without the audience", a: token("ephemeral", "vault"), want: notNamed("vault")},
		{name: "in-tree inline volume migrated to CSI", a: token("azure-inline", "azure")},
		{name: "in-tree persistent volume migrated to CSI", a: token("azure-claim", "azure")},
	})
}

func TestTokenAudienceAuthorizer(t *testing.T) {
	s := audienceStore()
	authz := &recordingAuthorizer{allow: map[string]bool{"registry": true, "vault": true}}
	p := newPlugin(t, s, Options{Authorizer: authz})
	token := func(podName string, audiences ...string) *admission.Attributes {
		return tokenFor(tokenRequest(podName, types.UID(podName+"-uid"), audiences...))
	}
	const prefix = `serviceaccounts "sa" is forbidden: `
	runAdmit(t, p, []admitCase{
		{name: "granted audience", a: token("nothing", "registry")},
		// A lookup error refuses before the authorizer is asked.
		{name: "refused on a lookup error despite a grant", a: token("missing-driver", "vault"),
			want: prefix + `error validating audience "vault": csidriver.storage.k8s.io "gone.csi.example.com" not found`},
		{name: "audience not granted", a: token("nothing", "other"),
			want: prefix + `system:node:n1 is not authorized to request tokens for audience "other"`},
		{name: "lookup error shown when not granted", a: token("missing-claim", "storage"),
			want: prefix + `error validating audience "storage": persistentvolumeclaim "gone" not found`},
	})

	want := authorizer.AttributesRecord{
		User: node1, Verb: AudienceVerb, Namespace: "ns", APIGroup: "", APIVersion: "v1",
		Resource: "registry", Name: "sa", ResourceRequest: true,
	}
	if diff := cmp.Diff(want, authz.asked[0]); diff != "" {
		t.Errorf("authorization attributes (-want +got):\n%s", diff)
	}
	t.Run("named audiences skip the authorizer", func(t *testing.T) {
		authz.asked = nil
		checkErr(t, p.Admit(t.Context(), token("projected", "vault")), "", false)
		if len(authz.asked) != 0 {
			t.Errorf("authorizer asked %v", authz.asked)
		}
	})
}

func TestTokenAudienceDisabled(t *testing.T) {
	p := newPlugin(t, audienceStore(), Options{DisableAudienceRestriction: true})
	for _, tc := range []struct{ pod, audience string }{{"nothing", "anything"}, {"missing-driver", "vault"}, {"nothing", ""}} {
		t.Run(tc.pod+"/"+tc.audience, func(t *testing.T) {
			a := tokenFor(tokenRequest(tc.pod, types.UID(tc.pod+"-uid"), tc.audience, "second"))
			checkErr(t, p.Admit(t.Context(), a), "", false)
		})
	}
}

func TestMigratedDrivers(t *testing.T) {
	cases := []struct {
		inline     corev1.VolumeSource
		persistent corev1.PersistentVolumeSource
		want       string
	}{
		{corev1.VolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{}},
			corev1.PersistentVolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{}}, "ebs.csi.aws.com"},
		{corev1.VolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{}},
			corev1.PersistentVolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{}}, "pd.csi.storage.gke.io"},
		{corev1.VolumeSource{Cinder: &corev1.CinderVolumeSource{}},
			corev1.PersistentVolumeSource{Cinder: &corev1.CinderPersistentVolumeSource{}}, "cinder.csi.openstack.org"},
		{corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{}},
			corev1.PersistentVolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{}}, "disk.csi.azure.com"},
		{corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{}},
			corev1.PersistentVolumeSource{AzureFile: &corev1.AzureFilePersistentVolumeSource{}}, "file.csi.azure.com"},
		{corev1.VolumeSource{VsphereVolume: &corev1.VsphereVirtualDiskVolumeSource{}},
			corev1.PersistentVolumeSource{VsphereVolume: &corev1.VsphereVirtualDiskVolumeSource{}}, "csi.vsphere.vmware.com"},
		{corev1.VolumeSource{PortworxVolume: &corev1.PortworxVolumeSource{}},
			corev1.PersistentVolumeSource{PortworxVolume: &corev1.PortworxVolumeSource{}}, "pxd.portworx.com"},
		{corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{}},
			corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := inlineMigratedDriver(&tc.inline); got != tc.want {
				t.Errorf("inline driver = %q, want %q", got, tc.want)
			}
			if got := persistentMigratedDriver(&tc.persistent); got != tc.want {
				t.Errorf("persistent driver = %q, want %q", got, tc.want)
			}
		})
	}
}
