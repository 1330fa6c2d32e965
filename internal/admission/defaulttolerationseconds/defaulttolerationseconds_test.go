package defaulttolerationseconds

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func secs(s int64) *int64 { return &s }

func podWith(ts ...corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Tolerations: ts}}
}

var (
	notReady300    = corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(300)}
	unreachable60  = corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(60)}
	userNotReady   = corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(5)}
	userNoSchedule = corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
)

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    runtime.Object
		wantErr string
	}{
		{
			name: "adds both",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: podWith()},
			want: podWith(notReady300, unreachable60),
		},
		{
			name: "keeps the pod's own not-ready toleration",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: podWith(userNotReady)},
			want: podWith(userNotReady, unreachable60),
		},
		{
			name: "a NoSchedule toleration does not count",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Update, Object: podWith(userNoSchedule)},
			want: podWith(userNoSchedule, notReady300, unreachable60),
		},
		{
			name: "an empty key and effect tolerates everything",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: podWith(corev1.Toleration{Operator: corev1.TolerationOpExists})},
			want: podWith(corev1.Toleration{Operator: corev1.TolerationOpExists}),
		},
		{
			name: "an empty effect with the key counts",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Create,
				Object: podWith(corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpEqual, Value: "x"})},
			want: podWith(corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpEqual, Value: "x"}, notReady300),
		},
		{
			name: "subresource",
			a:    &admission.Attributes{Resource: podsGVR, Subresource: "status", Operation: admission.Update, Object: podWith()},
			want: podWith(),
		},
		{
			name: "delete",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Delete},
		},
		{
			name:    "not a pod",
			a:       &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: &corev1.Node{}},
			want:    &corev1.Node{},
			wantErr: "expected *api.Pod but got *v1.Node",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(300, 60).Admit(context.Background(), tt.a)
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
