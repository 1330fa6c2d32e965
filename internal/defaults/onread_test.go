package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestServiceOnRead(t *testing.T) {
	single, dual := corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyRequireDualStack
	cluster := corev1.ServiceInternalTrafficPolicyCluster
	tests := []struct {
		name string
		in   corev1.ServiceSpec
		want corev1.ServiceSpec
	}{
		{"singular cluster IP", corev1.ServiceSpec{ClusterIP: "10.0.0.7"},
			corev1.ServiceSpec{ClusterIP: "10.0.0.7", ClusterIPs: []string{"10.0.0.7"}, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: &single}},
		{"IPv6", corev1.ServiceSpec{ClusterIP: "fd00::7", ClusterIPs: []string{"fd00::7"}},
			corev1.ServiceSpec{ClusterIP: "fd00::7", ClusterIPs: []string{"fd00::7"}, IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}, IPFamilyPolicy: &single}},
		{"headless with selector", corev1.ServiceSpec{ClusterIP: "None", Selector: map[string]string{"a": "b"}},
			corev1.ServiceSpec{ClusterIP: "None", ClusterIPs: []string{"None"}, Selector: map[string]string{"a": "b"}, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: &single}},
		{"headless without selector", corev1.ServiceSpec{ClusterIP: "None"},
			corev1.ServiceSpec{ClusterIP: "None", ClusterIPs: []string{"None"}, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}, IPFamilyPolicy: &dual}},
		{"families kept", corev1.ServiceSpec{ClusterIP: "None", ClusterIPs: []string{"None"}, IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}, IPFamilyPolicy: &single},
			corev1.ServiceSpec{ClusterIP: "None", ClusterIPs: []string{"None"}, IPFamilies: []corev1.IPFamily{corev1.IPv6Protocol}, IPFamilyPolicy: &single}},
		{"no cluster IP yet", corev1.ServiceSpec{}, corev1.ServiceSpec{}},
		{"external name", corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "x.example.com", InternalTrafficPolicy: &cluster},
			corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "x.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &corev1.Service{Spec: tt.in}
			serviceOnRead(s)
			if diff := cmp.Diff(tt.want, s.Spec); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOnReadJobLabels: kube-apiserver stores a Job without the labels its
// defaults copy from the template, and adds them on every read.
func TestOnReadJobLabels(t *testing.T) {
	j := &batchv1.Job{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{}}}
	j.Spec.Template.Labels = map[string]string{"job-name": "j"}
	OnRead(j)
	if j.Labels["job-name"] != "j" {
		t.Errorf("labels = %v", j.Labels)
	}
}
