package policy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func privileged() corev1.Container {
	t := true
	return corev1.Container{Name: "root", Image: "busybox", SecurityContext: &corev1.SecurityContext{Privileged: &t}}
}

func TestSpecExamples(t *testing.T) {
	e := newEnv()
	p := newPlugin(options(e), append(loadYAML(t, "deny-privileged.yaml"), loadYAML(t, "require-labels.yaml")...)...)
	named := map[string]string{"app.kubernetes.io/name": "web"}
	tests := []struct {
		name    string
		a       *admission.Attributes
		wantErr string
		code    int32
	}{
		{"plain pod", podRequest(admission.Create, pod("default", "p", named), nil), "", 0},
		{"privileged pod", podRequest(admission.Create, pod("default", "p", named, privileged()), nil),
			`pods "p" is forbidden: ValidatingAdmissionPolicy 'example-deny-privileged' with binding 'example-deny-privileged-binding' denied request: Privileged containers are not allowed`, 422},
		{"privileged init container", podRequest(admission.Create, func() *corev1.Pod {
			p := pod("default", "p", named)
			p.Spec.InitContainers = []corev1.Container{privileged()}
			return p
		}(), nil), `pods "p" is forbidden: ValidatingAdmissionPolicy 'example-deny-privileged' with binding 'example-deny-privileged-binding' denied request: Privileged containers are not allowed`, 422},
		{"privileged in kube-system", podRequest(admission.Create, pod("kube-system", "p", named, privileged()), nil), "", 0},
		{"unlabelled pod", podRequest(admission.Create, pod("default", "p", nil), nil),
			`pods "p" is forbidden: ValidatingAdmissionPolicy 'example-require-labels' with binding 'example-require-labels-binding' denied request: All pods must have the 'app.kubernetes.io/name' label`, 422},
		{"unlabelled pod update", podRequest(admission.Update, pod("default", "p", nil), pod("default", "p", nil)), "", 0},
		{"unlabelled in kube-system", podRequest(admission.Create, pod("kube-system", "p", nil), nil), "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err, _ := run(p, tc.a)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			se := statusOf(t, err)
			if se.Error() != tc.wantErr || se.ErrStatus.Code != tc.code {
				t.Fatalf("got %d %q\nwant %d %q", se.ErrStatus.Code, se.Error(), tc.code, tc.wantErr)
			}
		})
	}
}
