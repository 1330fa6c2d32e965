package podgroupprotection

import (
	"context"
	"slices"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PodGroupProtection"

// Finalizer keeps a PodGroup until no pod references it.
const Finalizer = schedulingv1beta1.GroupName + "/podgroup-protection"

// Plugin is PodGroupProtection.
type Plugin struct {
	enabled bool
}

// New returns the plugin; enabled is the GenericWorkload feature gate (off
// by default in kube-apiserver 1.37: the plugin then does nothing).
func New(enabled bool) *Plugin { return &Plugin{enabled: enabled} }

var podGroups = schema.GroupResource{Group: schedulingv1beta1.GroupName, Resource: "podgroups"}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if !p.enabled || a.Operation != admission.Create || a.Subresource != "" || a.Resource.GroupResource() != podGroups {
		return nil
	}
	switch a.Object.(type) {
	case *schedulingv1beta1.PodGroup, *schedulingv1alpha3.PodGroup:
	default:
		return nil
	}
	m, err := meta.Accessor(a.Object)
	if err != nil {
		return nil
	}
	if f := m.GetFinalizers(); !slices.Contains(f, Finalizer) {
		m.SetFinalizers(append(f, Finalizer))
	}
	return nil
}
