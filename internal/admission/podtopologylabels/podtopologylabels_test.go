package podtopologylabels

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func nodes(_ context.Context, name string) (*corev1.Node, error) {
	switch name {
	case "zoned":
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1",
			corev1.LabelHostname: "zoned", "topology.kubernetes.io/rack": "k"}}}, nil
	case "plain":
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: "plain"}}}, nil
	case "broken":
		return nil, apierrors.NewServiceUnavailable("store unavailable")
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
}

func pod(node string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
}

func binding(kind, node string, labels map[string]string) *corev1.Binding {
	return &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: labels}, Target: corev1.ObjectReference{Kind: kind, Name: node}}
}

var zoneRegion = map[string]string{corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1"}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name     string
		disabled bool
		a        *admission.Attributes
		want     runtime.Object
		wantErr  string
	}{
		{
			name: "binding gets the node's zone and region only",
			a:    &admission.Attributes{Resource: pods, Subresource: "binding", Operation: admission.Create, Object: binding("Node", "zoned", nil)},
			want: binding("Node", "zoned", zoneRegion),
		},
		{
			name: "pod created on a node, its own zone overwritten",
			a: &admission.Attributes{Resource: pods, Operation: admission.Create,
				Object: pod("zoned", map[string]string{"app": "a", corev1.LabelTopologyZone: "mine"})},
			want: pod("zoned", map[string]string{"app": "a", corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1"}),
		},
		{
			name: "gate off",
			a:    &admission.Attributes{Resource: pods, Subresource: "binding", Operation: admission.Create, Object: binding("Node", "zoned", nil)},
			want: binding("Node", "zoned", nil), disabled: true,
		},
		{
			name: "unscheduled pod",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod("", nil)},
			want: pod("", nil),
		},
		{
			name: "node without topology labels leaves labels nil",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod("plain", nil)},
			want: pod("plain", nil),
		},
		{
			name: "missing node",
			a:    &admission.Attributes{Resource: pods, Subresource: "binding", Operation: admission.Create, Object: binding("Node", "nowhere", nil)},
			want: binding("Node", "nowhere", nil),
		},
		{
			name: "binding to something else",
			a:    &admission.Attributes{Resource: pods, Subresource: "binding", Operation: admission.Create, Object: binding("Cluster", "zoned", nil)},
			want: binding("Cluster", "zoned", nil),
		},
		{
			name: "pod update",
			a:    &admission.Attributes{Resource: pods, Operation: admission.Update, Object: pod("zoned", nil)},
			want: pod("zoned", nil),
		},
		{
			name:    "read failure",
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod("broken", nil)},
			want:    pod("broken", nil),
			wantErr: "store unavailable",
		},
		{
			name: "binding subresource without a Binding",
			a: &admission.Attributes{Resource: pods, Subresource: "binding", Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
				Operation: admission.Create, Object: pod("zoned", nil)},
			want:    pod("zoned", nil),
			wantErr: "expected Binding but got Pod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(nodes, !tt.disabled).Admit(context.Background(), tt.a)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.As(err, new(*apierrors.StatusError)) {
					t.Errorf("got %T, want a *StatusError", err)
				}
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.a.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}
