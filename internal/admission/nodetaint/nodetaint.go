package nodetaint

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "TaintNodesByCondition"

// Plugin is TaintNodesByCondition.
type Plugin struct{}

var _ admission.Mutator = Plugin{}

// New returns the plugin.
func New() Plugin { return Plugin{} }

// Admit implements admission.Mutator.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Resource.Group != "" || a.Resource.Resource != "nodes" || a.Subresource != "" {
		return nil
	}
	node, ok := a.Object.(*corev1.Node)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.Object))
	}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	for i := range node.Spec.Taints {
		if node.Spec.Taints[i].MatchTaint(&notReady) {
			return nil
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, notReady)
	return nil
}
