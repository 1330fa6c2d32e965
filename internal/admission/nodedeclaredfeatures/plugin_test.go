package nodedeclaredfeatures

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

const podLevelResize = "InPlacePodLevelResourcesVerticalScaling"

func node(name string, labels map[string]string, features ...string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Status: corev1.NodeStatus{DeclaredFeatures: features}}
}

var testNodes = []*corev1.Node{
	node("modern", map[string]string{"pool": "gpu"}, podLevelResize, draFeature),
	node("old", map[string]string{"pool": "gpu"}),
	node("cpu", map[string]string{"pool": "cpu"}, draFeature),
}

func newPlugin(t *testing.T, dra bool, listErr error) *Plugin {
	t.Helper()
	p, err := New(Options{
		Node: func(_ context.Context, name string) (*corev1.Node, error) {
			if name == "broken" {
				return nil, errors.New("store down")
			}
			for _, n := range testNodes {
				if n.Name == name {
					return n, nil
				}
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
		},
		ListNodes:                   func(context.Context) ([]*corev1.Node, error) { return testNodes, listErr },
		Version:                     "v1.37.2",
		DRANodeAllocatableResources: dra,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pod(nodeName string, generation int64, podCPU string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Generation: generation},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "c"}}}}
	if podCPU != "" {
		p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(podCPU)}}
	}
	return p
}

// status is the status of err, nil for nil.
func status(t *testing.T, err error) *metav1.Status {
	t.Helper()
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a StatusError", err)
	}
	return &se.ErrStatus
}

func forbidden(gr schema.GroupResource, name, msg string) *metav1.Status {
	return &apierrors.NewForbidden(gr, name, errors.New(msg)).ErrStatus
}

func TestValidatePod(t *testing.T) {
	podsGR := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		obj, old    runtime.Object
		want        *metav1.Status
	}{
		{name: "pod-level resize on a node that declares it", op: admission.Update, subresource: "resize",
			obj: pod("modern", 2, "2"), old: pod("modern", 1, "1")},
		{name: "pod-level resize on a node that does not", op: admission.Update, subresource: "resize",
			obj: pod("old", 2, "2"), old: pod("old", 1, "1"),
			want: forbidden(podsGR, "web", `pod update requires features InPlacePodLevelResourcesVerticalScaling which are not available on node "old"`)},
		{name: "main resource is checked too", op: admission.Update,
			obj: pod("old", 2, "2"), old: pod("old", 1, "1"),
			want: forbidden(podsGR, "web", `pod update requires features InPlacePodLevelResourcesVerticalScaling which are not available on node "old"`)},
		{name: "node missing", op: admission.Update, subresource: "resize",
			obj: pod("gone", 2, "2"), old: pod("gone", 1, "1"), want: forbidden(podsGR, "web", `node "gone" not found`)},
		{name: "node unreadable", op: admission.Update, subresource: "resize",
			obj: pod("broken", 2, "2"), old: pod("broken", 1, "1"), want: forbidden(podsGR, "web", `failed to get node "broken": store down`)},
		{name: "update needing no feature does not read the node", op: admission.Update,
			obj: pod("gone", 2, "1"), old: pod("gone", 1, "1")},
		{name: "generation unchanged", op: admission.Update, subresource: "resize", obj: pod("old", 1, "2"), old: pod("old", 1, "1")},
		{name: "unbound", op: admission.Update, obj: pod("", 2, "2"), old: pod("", 1, "1")},
		{name: "status not checked", op: admission.Update, subresource: "status", obj: pod("old", 2, "2"), old: pod("old", 1, "1")},
		{name: "create not checked", op: admission.Create, obj: pod("old", 2, "2")},
		{name: "not a pod", op: admission.Update, obj: &corev1.Node{}, old: pod("old", 1, "1"),
			want: &apierrors.NewBadRequest("expected a pod but got a *v1.Node").ErrStatus},
		{name: "old not a pod", op: admission.Update, obj: pod("old", 2, "2"), old: &corev1.Node{},
			want: &apierrors.NewBadRequest("expected an old pod but got a *v1.Node").ErrStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: tt.subresource,
				Operation: tt.op, Name: "web", Namespace: "ns", Object: tt.obj, OldObject: tt.old}
			got := status(t, newPlugin(t, false, nil).Validate(context.Background(), a))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func allocatable() map[corev1.ResourceName]resourcev1.NodeAllocatableResource {
	return map[corev1.ResourceName]resourcev1.NodeAllocatableResource{corev1.ResourceMemory: {}}
}

func TestValidateResourceSlice(t *testing.T) {
	slicesGR := schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
	gpu := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}}}}
	cpuPool := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"cpu"}}}}}}
	bad := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "pool", Operator: "Bogus"}}}}}
	v1slice := func(spec resourcev1.ResourceSliceSpec) *resourcev1.ResourceSlice {
		return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: spec}
	}
	tests := []struct {
		name    string
		dra     bool
		listErr error
		op      admission.Operation
		obj     runtime.Object
		want    *metav1.Status
	}{
		{name: "gate off", op: admission.Create,
			obj: v1slice(resourcev1.ResourceSliceSpec{NodeName: ptr.To("old"), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}})},
		{name: "gate off still checks the type", op: admission.Create, obj: &corev1.Pod{},
			want: &apierrors.NewBadRequest("expected a ResourceSlice but got a *v1.Pod").ErrStatus},
		{name: "slice node declares", dra: true, op: admission.Create,
			obj: v1slice(resourcev1.ResourceSliceSpec{NodeName: ptr.To("modern"), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}})},
		{name: "slice node does not declare", dra: true, op: admission.Update,
			obj:  v1slice(resourcev1.ResourceSliceSpec{NodeName: ptr.To("old"), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `node "old" does not support DRANodeAllocatableResources feature`)},
		{name: "devices without allocatable resources are not checked", dra: true, op: admission.Create,
			obj: v1slice(resourcev1.ResourceSliceSpec{NodeName: ptr.To("old"), Devices: []resourcev1.Device{{Name: "d"}}})},
		{name: "slice node missing", dra: true, op: admission.Create,
			obj:  v1slice(resourcev1.ResourceSliceSpec{NodeName: ptr.To("gone"), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `node "gone" not found for device "d"`)},
		{name: "slice node unreadable", dra: true, op: admission.Create,
			obj:  v1slice(resourcev1.ResourceSliceSpec{NodeName: ptr.To("broken"), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `failed to get node "broken" for device "d": store down`)},
		{name: "selector including an old node", dra: true, op: admission.Create,
			obj:  v1slice(resourcev1.ResourceSliceSpec{NodeSelector: gpu, Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `node "old" does not support DRANodeAllocatableResources feature`)},
		{name: "selector of declaring nodes", dra: true, op: admission.Create,
			obj: v1slice(resourcev1.ResourceSliceSpec{NodeSelector: cpuPool, Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}})},
		{name: "bad selector", dra: true, op: admission.Create,
			obj:  v1slice(resourcev1.ResourceSliceSpec{NodeSelector: bad, Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: &apierrors.NewBadRequest(`failed to create node selector: nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Bogus": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`).ErrStatus},
		{name: "all nodes", dra: true, op: admission.Create,
			obj:  v1slice(resourcev1.ResourceSliceSpec{AllNodes: ptr.To(true), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `node "old" does not support DRANodeAllocatableResources feature`)},
		{name: "list error", dra: true, listErr: errors.New("store down"), op: admission.Create,
			obj:  v1slice(resourcev1.ResourceSliceSpec{AllNodes: ptr.To(true), Devices: []resourcev1.Device{{Name: "d", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `failed to list nodes for device "d": store down`)},
		{name: "per device: each device's own nodes", dra: true, op: admission.Create,
			obj: v1slice(resourcev1.ResourceSliceSpec{PerDeviceNodeSelection: ptr.To(true), Devices: []resourcev1.Device{
				{Name: "a", NodeAllocatableResources: allocatable(), NodeName: ptr.To("modern")},
				{Name: "b", NodeAllocatableResources: allocatable(), NodeSelector: cpuPool},
				{Name: "c", NodeAllocatableResources: allocatable(), NodeName: ptr.To("old")},
			}}),
			want: forbidden(slicesGR, "s", `node "old" does not support DRANodeAllocatableResources feature`)},
		{name: "per device without nodes", dra: true, op: admission.Create,
			obj: v1slice(resourcev1.ResourceSliceSpec{PerDeviceNodeSelection: ptr.To(true), NodeName: ptr.To("modern"), Devices: []resourcev1.Device{
				{Name: "a", NodeAllocatableResources: allocatable()}}}),
			want: forbidden(slicesGR, "s", `device "a" in ResourceSlice has NodeAllocatableResources but does not map to any nodes`)},
		{name: "v1beta1 slice node does not declare", dra: true, op: admission.Create,
			obj: &resourcev1beta1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: resourcev1beta1.ResourceSliceSpec{NodeName: "old",
				Devices: []resourcev1beta1.Device{{Name: "d", Basic: &resourcev1beta1.BasicDevice{
					NodeAllocatableResources: map[corev1.ResourceName]resourcev1beta1.NodeAllocatableResource{corev1.ResourceMemory: {}}}}}}},
			want: forbidden(slicesGR, "s", `node "old" does not support DRANodeAllocatableResources feature`)},
		{name: "delete not checked", dra: true, op: admission.Delete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"},
				Operation: tt.op, Name: "s", Object: tt.obj}
			got := status(t, newPlugin(t, tt.dra, tt.listErr).Validate(context.Background(), a))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	n := func(context.Context, string) (*corev1.Node, error) { return nil, nil }
	l := func(context.Context) ([]*corev1.Node, error) { return nil, nil }
	if _, err := New(Options{Node: n, ListNodes: l, Version: "not a version"}); err == nil {
		t.Error("New accepted a bad version")
	}
	if _, err := New(Options{Version: "v1.37.2"}); !errors.Is(err, ErrNoNodes) {
		t.Errorf("New without nodes = %v", err)
	}
}
