package runtimeclass

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func overhead(cpu string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
}

var (
	tolGPU   = corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	tolGPUv  = corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpEqual, Value: "a", Effect: corev1.TaintEffectNoSchedule}
	tolOther = corev1.Toleration{Key: "other", Operator: corev1.TolerationOpExists}
)

var classes = map[string]*nodev1.RuntimeClass{
	"plain":    {ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Handler: "runc"},
	"overhead": {ObjectMeta: metav1.ObjectMeta{Name: "overhead"}, Handler: "kata", Overhead: &nodev1.Overhead{PodFixed: overhead("250m")}},
	"sched": {ObjectMeta: metav1.ObjectMeta{Name: "sched"}, Handler: "gvisor", Scheduling: &nodev1.Scheduling{
		NodeSelector: map[string]string{"sandbox": "gvisor", "arch": "amd64"},
		Tolerations:  []corev1.Toleration{tolGPU},
	}},
}

func get(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
	if rc, ok := classes[name]; ok {
		return rc.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, name)
}

type podSpec struct {
	class    string
	overhead corev1.ResourceList
	selector map[string]string
	tols     []corev1.Toleration
}

func pod(s podSpec) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Overhead: s.overhead, NodeSelector: s.selector, Tolerations: s.tols}}
	if s.class != "" {
		p.Spec.RuntimeClassName = &s.class
	}
	return p
}

var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    runtime.Object
		wantErr string
	}{
		{
			name: "no class",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{})},
			want: pod(podSpec{}),
		},
		{
			name: "class without overhead or scheduling",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "plain"})},
			want: pod(podSpec{class: "plain"}),
		},
		{
			name: "overhead set",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "overhead"})},
			want: pod(podSpec{class: "overhead", overhead: overhead("250m")}),
		},
		{
			name: "the same overhead given",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "overhead", overhead: overhead("0.25")})},
			want: pod(podSpec{class: "overhead", overhead: overhead("250m")}),
		},
		{
			name:    "another overhead given",
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "overhead", overhead: overhead("1")})},
			want:    pod(podSpec{class: "overhead", overhead: overhead("1")}),
			wantErr: `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
		},
		{
			name: "scheduling into an empty pod",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "sched"})},
			want: pod(podSpec{class: "sched", selector: map[string]string{"sandbox": "gvisor", "arch": "amd64"}, tols: []corev1.Toleration{tolGPU}}),
		},
		{
			name: "scheduling merged with the pod's",
			a: &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "sched",
				selector: map[string]string{"arch": "amd64", "disk": "ssd"}, tols: []corev1.Toleration{tolGPUv, tolOther}})},
			want: pod(podSpec{class: "sched", selector: map[string]string{"sandbox": "gvisor", "arch": "amd64", "disk": "ssd"},
				tols: []corev1.Toleration{tolOther, tolGPU}}),
		},
		{
			name: "selector conflict",
			a: &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "sched",
				selector: map[string]string{"arch": "arm64", "sandbox": "runc"}})},
			want:    pod(podSpec{class: "sched", selector: map[string]string{"arch": "arm64", "sandbox": "runc"}}),
			wantErr: `pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[arch] = amd64; pod.spec.nodeSelector[arch] = arm64`,
		},
		{
			name:    "missing class",
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "nope"})},
			want:    pod(podSpec{class: "nope"}),
			wantErr: `pods "p" is forbidden: pod rejected: RuntimeClass "nope" not found`,
		},
		{
			name: "update is not the plugin's",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Update, Object: pod(podSpec{class: "nope"})},
			want: pod(podSpec{class: "nope"}),
		},
		{
			name:    "not a pod",
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: &corev1.Node{}},
			want:    &corev1.Node{},
			wantErr: "Resource was marked with kind Pod but was unable to be converted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(get).Admit(context.Background(), tt.a)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.a.Object, quantities); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{name: "no class, no overhead", pod: pod(podSpec{})},
		{name: "matching overhead", pod: pod(podSpec{class: "overhead", overhead: overhead("250m")})},
		{name: "changed overhead", pod: pod(podSpec{class: "overhead", overhead: overhead("1")}),
			want: `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{name: "dropped overhead", pod: pod(podSpec{class: "overhead"}),
			want: `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{name: "overhead without a class", pod: pod(podSpec{overhead: overhead("1")}),
			want: `pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{name: "overhead with a class that has none", pod: pod(podSpec{class: "plain", overhead: corev1.ResourceList{}}),
			want: `pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{name: "missing class", pod: pod(podSpec{class: "nope"}), want: `pods "p" is forbidden: pod rejected: RuntimeClass "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(get).Validate(context.Background(), &admission.Attributes{Resource: pods, Operation: admission.Create, Object: tt.pod})
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
