package node

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func audienceFixture(t *testing.T, opts Options) (*Authorizer, *corev1.Pod) {
	a := newTestAuthorizer(t, opts)
	for _, d := range []struct{ name, aud string }{{"inline.csi", "inline-aud"}, {"pv.csi", "pv-aud"}, {"eph.csi", "eph-aud"}, {"none.csi", ""}} {
		if d.aud == "" {
			a.Upsert(testCSIDriver(d.name))
		} else {
			a.Upsert(testCSIDriver(d.name, d.aud, "shared-aud"))
		}
	}
	token := func(aud string) func(*corev1.Pod) {
		return withVolume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: aud, Path: "t"}},
		}}})
	}
	p1 := testPod("ns", "p1", "n1", withSA("sa1"), token("vault"), token(""),
		withVolume(corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "inline.csi"}}),
		withClaim("claim1"),
		func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{
				Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{}},
			}})
		})
	a.Upsert(p1)
	a.Upsert(csiPV("pv1", "ns", "claim1", "pv.csi", nil))
	a.Upsert(csiPV("pv-eph", "ns", "p1-scratch", "eph.csi", nil))
	a.Upsert(testPod("ns", "p2", "n2", withSA("sa2"), token("other")))
	a.Upsert(testPod("ns", "p3", "n1", withSA("sa3"), withVolume(corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "none.csi"}})))
	a.Upsert(testPod("ns", "m", "n1", mirror, withSA("sa1"), token("mirror-aud")))
	return a, p1
}

func TestAudienceAllowed(t *testing.T) {
	api := []string{"https://kubernetes.default.svc", "api"}
	a, _ := audienceFixture(t, Options{})
	tests := []struct {
		name              string
		node, ns, sa, aud string
		want              bool
	}{
		{"empty audience", "nx", "ns", "sa1", "", true},
		{"api audience", "nx", "ns", "nobody", "api", true},
		{"projected token volume", "n1", "ns", "sa1", "vault", true},
		{"inline csi driver", "n1", "ns", "sa1", "inline-aud", true},
		{"csi driver behind a claim", "n1", "ns", "sa1", "pv-aud", true},
		{"csi driver behind an ephemeral claim", "n1", "ns", "sa1", "eph-aud", true},
		{"second audience of a driver", "n1", "ns", "sa1", "shared-aud", true},
		{"audience of another node's pod", "n1", "ns", "sa1", "other", false},
		{"that node's pod", "n2", "ns", "sa2", "other", true},
		{"another service account on the node", "n1", "ns", "sa3", "vault", false},
		{"driver without token requests", "n1", "ns", "sa3", "inline-aud", false},
		{"the account on another node", "n2", "ns", "sa1", "vault", false},
		{"another namespace", "n1", "other", "sa1", "vault", false},
		{"unknown node", "nx", "ns", "sa1", "vault", false},
		{"unknown audience", "n1", "ns", "sa1", "nope", false},
		{"mirror pods name nothing", "n1", "ns", "sa1", "mirror-aud", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.AudienceAllowed(tt.node, tt.ns, tt.sa, tt.aud, api); got != tt.want {
				t.Errorf("AudienceAllowed(%s, %s/%s, %q) = %v, want %v", tt.node, tt.ns, tt.sa, tt.aud, got, tt.want)
			}
		})
	}
}

func TestAudienceFollowsChanges(t *testing.T) {
	a, p1 := audienceFixture(t, Options{})
	a.Delete(testCSIDriver("inline.csi"))
	a.Delete(csiPV("pv1", "", "", "", nil))
	a.Upsert(testPV("pv-eph", "ns", "p1-scratch", corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{}}))
	for _, aud := range []string{"inline-aud", "pv-aud", "eph-aud"} {
		if a.AudienceAllowed("n1", "ns", "sa1", aud, nil) {
			t.Errorf("%s still allowed", aud)
		}
		if a.PodAudienceAllowed(p1, aud, nil) {
			t.Errorf("%s still allowed for the pod", aud)
		}
	}
	a.Upsert(testCSIDriver("inline.csi", "inline-aud"))
	if !a.AudienceAllowed("n1", "ns", "sa1", "inline-aud", nil) {
		t.Error("driver added back: audience refused")
	}
	a.Delete(p1)
	if a.AudienceAllowed("n1", "ns", "sa1", "vault", nil) {
		t.Error("pod deleted: audience still allowed")
	}
}

func TestPodAudienceAllowed(t *testing.T) {
	a, p1 := audienceFixture(t, Options{})
	for _, tt := range []struct {
		aud  string
		want bool
	}{
		{"", true}, {"api", true}, {"vault", true}, {"inline-aud", true}, {"pv-aud", true}, {"eph-aud", true},
		{"other", false}, {"nope", false},
	} {
		if got := a.PodAudienceAllowed(p1, tt.aud, []string{"api"}); got != tt.want {
			t.Errorf("PodAudienceAllowed(%q) = %v, want %v", tt.aud, got, tt.want)
		}
	}
}

func TestAudienceRestrictionOff(t *testing.T) {
	a, p1 := audienceFixture(t, Options{AllowAnyTokenAudience: true})
	if !a.AudienceAllowed("nx", "ns", "sa", "anything", nil) || !a.PodAudienceAllowed(p1, "anything", nil) {
		t.Error("restriction off: audience refused")
	}
}
