package antiaffinity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func pod(name string, required []string, preferred ...string) *corev1.Pod {
	anti := &corev1.PodAntiAffinity{}
	for _, k := range required {
		anti.RequiredDuringSchedulingIgnoredDuringExecution = append(anti.RequiredDuringSchedulingIgnoredDuringExecution, corev1.PodAffinityTerm{TopologyKey: k})
	}
	for _, k := range preferred {
		anti.PreferredDuringSchedulingIgnoredDuringExecution = append(anti.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: k}})
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: anti}}}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		a    *admission.Attributes
		want string
	}{
		{name: "hostname", a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: pod("p", []string{corev1.LabelHostname})}},
		{name: "no affinity", a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: &corev1.Pod{}}},
		{name: "preferred zone is fine", a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: pod("p", nil, corev1.LabelTopologyZone)}},
		{
			name: "required zone",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Update, Object: pod("p", []string{corev1.LabelHostname, corev1.LabelTopologyZone})},
			want: `pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed`,
		},
		{
			name: "a generateName pod has no name in the message",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create,
				Object: func() *corev1.Pod { p := pod("", []string{"rack"}); p.GenerateName = "web-"; return p }()},
			want: `pods is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey rack but only key kubernetes.io/hostname is allowed`,
		},
		{name: "subresource", a: &admission.Attributes{Resource: podsGVR, Subresource: "status", Operation: admission.Update, Object: pod("p", []string{"rack"})}},
		{name: "delete", a: &admission.Attributes{Resource: podsGVR, Operation: admission.Delete, Object: pod("p", []string{"rack"})}},
		{
			name: "not a pod",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: &corev1.Node{}},
			want: "Resource was marked with kind Pod but was unable to be converted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Validate(context.Background(), tt.a)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
