package podresize

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func node(name, os, cpu, mem string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}
	if os != "" {
		n.Labels = map[string]string{corev1.LabelOSStable: os}
	}
	return n
}

func pod(nodeName string, generation int64, cpu, mem string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Generation: generation},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}}
}

// forbidden is the status kube-apiserver answers a refused resize with.
func forbidden(msg string, cause metav1.CauseType) *metav1.Status {
	s := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web", errors.New(msg)).ErrStatus
	if cause != "" {
		s.Details.Causes = append(s.Details.Causes, metav1.StatusCause{Type: cause})
	}
	return &s
}

func TestValidate(t *testing.T) {
	nodes := map[string]*corev1.Node{
		"n1":      node("n1", "linux", "2", "4Gi"),
		"nolabel": node("nolabel", "", "2", "4Gi"),
		"win":     node("win", "windows", "8", "16Gi"),
	}
	get := func(_ context.Context, name string) (*corev1.Node, error) {
		if name == "broken" {
			return nil, errors.New("store down")
		}
		if n, ok := nodes[name]; ok {
			return n, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
	}
	tests := []struct {
		name        string
		subresource string
		obj, old    runtime.Object
		want        *metav1.Status
	}{
		{name: "fits", subresource: "resize", obj: pod("n1", 2, "2", "4Gi"), old: pod("n1", 1, "1", "1Gi")},
		{name: "no os label is taken as linux", subresource: "resize", obj: pod("nolabel", 2, "1500m", "1Gi"), old: pod("nolabel", 1, "1", "1Gi")},
		{name: "cpu over", subresource: "resize", obj: pod("n1", 2, "2500m", "1Gi"), old: pod("n1", 1, "1", "1Gi"),
			want: forbidden(`node didn't have enough allocatable resources: cpu, requested: 2500, allocatable: 2000`, ReasonNodeCapacity)},
		{name: "cpu and memory over", subresource: "resize", obj: pod("n1", 2, "3", "5Gi"), old: pod("n1", 1, "1", "1Gi"),
			want: forbidden(`node didn't have enough allocatable resources: cpu, requested: 3000, allocatable: 2000; memory, requested: 5368709120, allocatable: 4294967296`, ReasonNodeCapacity)},
		{name: "windows node", subresource: "resize", obj: pod("win", 2, "1", "1Gi"), old: pod("win", 1, "1", "512Mi"),
			want: forbidden(`pod resize is only supported on linux nodes, node "win" is "windows"`, ReasonUnsupportedPlatform)},
		{name: "node missing", subresource: "resize", obj: pod("gone", 2, "1", "1Gi"), old: pod("gone", 1, "1", "512Mi"),
			want: forbidden(`node "gone" not found`, "")},
		{name: "node unreadable", subresource: "resize", obj: pod("broken", 2, "1", "1Gi"), old: pod("broken", 1, "1", "512Mi"),
			want: forbidden(`failed to get node "broken": store down`, "")},
		{name: "generation unchanged", subresource: "resize", obj: pod("n1", 1, "64", "1Ti"), old: pod("n1", 1, "1", "1Gi")},
		{name: "unbound pod", subresource: "resize", obj: pod("", 2, "64", "1Ti"), old: pod("", 1, "1", "1Gi")},
		{name: "main resource not checked", obj: pod("n1", 2, "64", "1Ti"), old: pod("n1", 1, "1", "1Gi")},
		{name: "not a pod", subresource: "resize", obj: &corev1.Node{}, old: pod("n1", 1, "1", "1Gi"),
			want: &apierrors.NewBadRequest("expected a pod but got a *v1.Node").ErrStatus},
		{name: "old not a pod", subresource: "resize", obj: pod("n1", 2, "1", "1Gi"), old: &corev1.Node{},
			want: &apierrors.NewBadRequest("expected an old pod but got a *v1.Node").ErrStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: tt.subresource,
				Operation: admission.Update, Name: "web", Namespace: "ns", Object: tt.obj, OldObject: tt.old}
			err := New(get).Validate(context.Background(), a)
			var got *metav1.Status
			if err != nil {
				var se *apierrors.StatusError
				if !errors.As(err, &se) {
					t.Fatalf("error %v is not a StatusError", err)
				}
				got = &se.ErrStatus
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
