package nodetaint

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

func node(ts ...corev1.Taint) *corev1.Node { return &corev1.Node{Spec: corev1.NodeSpec{Taints: ts}} }

var (
	notReady    = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	notReadyVal = corev1.Taint{Key: corev1.TaintNodeNotReady, Value: "x", Effect: corev1.TaintEffectNoSchedule}
	notReadyNE  = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
)

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    runtime.Object
		wantErr string
	}{
		{name: "create adds the taint", a: &admission.Attributes{Resource: nodesGVR, Operation: admission.Create, Object: node()}, want: node(notReady)},
		{name: "another effect of the key is not it", a: &admission.Attributes{Resource: nodesGVR, Operation: admission.Create, Object: node(notReadyNE)}, want: node(notReadyNE, notReady)},
		{name: "a value does not matter", a: &admission.Attributes{Resource: nodesGVR, Operation: admission.Create, Object: node(notReadyVal)}, want: node(notReadyVal)},
		{name: "update is left alone", a: &admission.Attributes{Resource: nodesGVR, Operation: admission.Update, Object: node()}, want: node()},
		{name: "status is left alone", a: &admission.Attributes{Resource: nodesGVR, Subresource: "status", Operation: admission.Create, Object: node()}, want: node()},
		{
			name: "not a node", a: &admission.Attributes{Resource: nodesGVR, Name: "n", Operation: admission.Create, Object: &corev1.Pod{}},
			want: &corev1.Pod{}, wantErr: `nodes "n" is forbidden: unexpected type *v1.Pod`,
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
			if diff := cmp.Diff(tt.want, tt.a.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}
