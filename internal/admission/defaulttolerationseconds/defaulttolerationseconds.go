package defaulttolerationseconds

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "DefaultTolerationSeconds"

// DefaultSeconds is kube-apiserver's default of both
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
const DefaultSeconds int64 = 300

// Plugin is DefaultTolerationSeconds.
type Plugin struct {
	notReady, unreachable int64
}

var _ admission.Mutator = (*Plugin)(nil)

// New returns the plugin adding not-ready and unreachable tolerations of
// the given lengths in seconds.
func New(notReadySeconds, unreachableSeconds int64) *Plugin {
	return &Plugin{notReady: notReadySeconds, unreachable: unreachableSeconds}
}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "" {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected *api.Pod but got %T", a.Object))
	}
	if !tolerates(pod.Spec.Tolerations, corev1.TaintNodeNotReady) {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, toleration(corev1.TaintNodeNotReady, p.notReady))
	}
	if !tolerates(pod.Spec.Tolerations, corev1.TaintNodeUnreachable) {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, toleration(corev1.TaintNodeUnreachable, p.unreachable))
	}
	return nil
}

// tolerates says whether some toleration already covers key:NoExecute the
// way kube-apiserver's plugin judges it: by key or empty key, by effect
// NoExecute or empty effect, whatever its operator and value.
func tolerates(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
			return true
		}
	}
	return false
}

func toleration(key string, seconds int64) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}
}
