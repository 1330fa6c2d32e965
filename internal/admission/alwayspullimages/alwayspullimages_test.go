package alwayspullimages

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func pod(policy corev1.PullPolicy, images ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	for i, img := range images {
		c := corev1.Container{Name: "c", Image: img, ImagePullPolicy: policy}
		switch i % 3 {
		case 0:
			p.Spec.Containers = append(p.Spec.Containers, c)
		case 1:
			p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		case 2:
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon(c)})
		}
	}
	return p
}

func withImageVolume(p *corev1.Pod, policy corev1.PullPolicy) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes,
		corev1.Volume{Name: "empty", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		corev1.Volume{Name: "img", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "data:1", PullPolicy: policy}}})
	return p
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    runtime.Object
		wantErr string
	}{
		{
			name: "create sets Always everywhere",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: withImageVolume(pod(corev1.PullIfNotPresent, "a", "b", "c"), corev1.PullNever)},
			want: withImageVolume(pod(corev1.PullAlways, "a", "b", "c"), corev1.PullAlways),
		},
		{
			name: "update with a new image",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Update,
				Object: pod(corev1.PullNever, "a", "new"), OldObject: pod(corev1.PullNever, "a", "b")},
			want: pod(corev1.PullAlways, "a", "new"),
		},
		{
			name: "update without a new image is left alone",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Update,
				Object: pod(corev1.PullNever, "b", "a"), OldObject: pod(corev1.PullNever, "a", "b")},
			want: pod(corev1.PullNever, "b", "a"),
		},
		{
			name: "subresource is left alone",
			a:    &admission.Attributes{Resource: podsGVR, Subresource: "ephemeralcontainers", Operation: admission.Update, Object: pod(corev1.PullNever, "a")},
			want: pod(corev1.PullNever, "a"),
		},
		{
			name: "other resource is left alone",
			a:    &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"}, Operation: admission.Create, Object: &corev1.PodTemplate{}},
			want: &corev1.PodTemplate{},
		},
		{
			name:    "not a pod",
			a:       &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: &corev1.Service{}},
			want:    &corev1.Service{},
			wantErr: "Resource was marked with kind Pod but was unable to be converted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Admit(context.Background(), tt.a)
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.a.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		a    *admission.Attributes
		want *metav1.Status
	}{
		{
			name: "all Always",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: withImageVolume(pod(corev1.PullAlways, "a", "b", "c"), corev1.PullAlways)},
		},
		{
			name: "one container",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: pod(corev1.PullIfNotPresent, "a")},
			want: &metav1.Status{Status: metav1.StatusFailure, Code: 500,
				Message: `pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"`},
		},
		{
			name: "every kind of container and an image volume, aggregated",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: withImageVolume(pod(corev1.PullNever, "a", "b", "c"), "")},
			want: &metav1.Status{Status: metav1.StatusFailure, Code: 500,
				Message: `[pods "p" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ` +
					`pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ` +
					`pods "p" is forbidden: spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ` +
					`pods "p" is forbidden: spec.volumes[1].image.pullPolicy: Unsupported value: "": supported values: "Always"]`},
		},
		{
			name: "update without a new image",
			a: &admission.Attributes{Resource: podsGVR, Operation: admission.Update,
				Object: pod(corev1.PullNever, "a"), OldObject: pod(corev1.PullNever, "a")},
		},
		{
			name: "delete",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Delete, OldObject: pod(corev1.PullNever, "a")},
		},
		{
			name: "not a pod",
			a:    &admission.Attributes{Resource: podsGVR, Operation: admission.Create, Object: &corev1.Service{}},
			want: &metav1.Status{Status: metav1.StatusFailure, Code: 400, Reason: metav1.StatusReasonBadRequest,
				Message: "Resource was marked with kind Pod but was unable to be converted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New().Validate(context.Background(), tt.a)
			var got *metav1.Status
			if err != nil {
				se, ok := err.(*apierrors.StatusError)
				if !ok {
					t.Fatalf("got %T %v, want a *StatusError", err, err)
				}
				got = &se.ErrStatus
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
