package extendedresourcetoleration

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "ExtendedResourceToleration"

// Plugin is ExtendedResourceToleration.
type Plugin struct{}

var _ admission.Mutator = Plugin{}

// New returns the plugin.
func New() Plugin { return Plugin{} }

// Admit implements admission.Mutator.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected *core.Pod but got %T", a.Object))
	}
	seen := map[string]bool{}
	var names []string
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			for r := range c.Resources.Requests {
				if isExtended(r) && !seen[string(r)] {
					seen[string(r)] = true
					names = append(names, string(r))
				}
			}
		}
	}
	slices.Sort(names)
	for _, n := range names {
		addOrUpdate(pod, corev1.Toleration{Key: n, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return nil
}

// isExtended says whether r is an extended resource: outside the
// kubernetes.io/ domain (an unqualified name is inside it), not a quota
// "requests." name, and a qualified name once quota prefixes it.
func isExtended(r corev1.ResourceName) bool {
	n := string(r)
	if !strings.Contains(n, "/") || strings.Contains(n, corev1.ResourceDefaultNamespacePrefix) {
		return false
	}
	if strings.HasPrefix(n, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+n)) == 0
}

// addOrUpdate puts t into the pod's tolerations: it replaces every
// toleration matching it (same key, operator, value and effect) unless
// one of them already equals it, and is appended when none matches.
func addOrUpdate(pod *corev1.Pod, t corev1.Toleration) {
	var out []corev1.Toleration
	replaced := false
	for i := range pod.Spec.Tolerations {
		cur := pod.Spec.Tolerations[i]
		if t.MatchToleration(&cur) {
			if equality.Semantic.DeepEqual(t, cur) {
				return
			}
			out = append(out, t)
			replaced = true
			continue
		}
		out = append(out, cur)
	}
	if !replaced {
		out = append(out, t)
	}
	pod.Spec.Tolerations = out
}
