package extendedresourcetoleration

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func requests(names ...string) corev1.ResourceRequirements {
	rl := corev1.ResourceList{}
	for _, n := range names {
		rl[corev1.ResourceName(n)] = resource.MustParse("1")
	}
	return corev1.ResourceRequirements{Requests: rl}
}

func pod(containers, inits []string, ts ...corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{
		Containers:     []corev1.Container{{Name: "c", Resources: requests(containers...)}},
		InitContainers: []corev1.Container{{Name: "i", Resources: requests(inits...)}},
		Tolerations:    ts,
	}}
}

func tol(key string) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
}

func secs(s int64) *int64 { return &s }

func TestAdmit(t *testing.T) {
	withSeconds := tol("example.com/gpu")
	withSeconds.TolerationSeconds = secs(10)
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    runtime.Object
		wantErr string
	}{
		{
			name: "native and quota names are not extended",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create,
				Object: pod([]string{"cpu", "memory", "hugepages-2Mi", "kubernetes.io/foo", "requests.example.com/x"}, nil)},
			want: pod([]string{"cpu", "memory", "hugepages-2Mi", "kubernetes.io/foo", "requests.example.com/x"}, nil),
		},
		{
			name: "sorted, once each, from containers and init containers",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create,
				Object: pod([]string{"example.com/gpu", "b.io/x"}, []string{"example.com/gpu", "a.io/y"})},
			want: pod([]string{"example.com/gpu", "b.io/x"}, []string{"example.com/gpu", "a.io/y"},
				tol("a.io/y"), tol("b.io/x"), tol("example.com/gpu")),
		},
		{
			name: "an equal toleration is kept, a matching one replaced",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Update,
				Object: pod([]string{"example.com/gpu", "b.io/x"}, nil, withSeconds, tol("b.io/x"))},
			want: pod([]string{"example.com/gpu", "b.io/x"}, nil, tol("example.com/gpu"), tol("b.io/x")),
		},
		{
			name: "subresource",
			a:    &admission.Attributes{Resource: podsGVR, Subresource: "resize", Operation: admission.Update, Object: pod([]string{"example.com/gpu"}, nil)},
			want: pod([]string{"example.com/gpu"}, nil),
		},
		{
			name:    "not a pod",
			a:       &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: &corev1.Node{}},
			want:    &corev1.Node{},
			wantErr: "expected *core.Pod but got *v1.Node",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Admit(context.Background(), tt.a)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.a.Object, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}
