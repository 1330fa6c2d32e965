package podresize

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PodResizeValidator"

// The status causes that tell a client why a resize was refused.
const (
	ReasonNodeCapacity        metav1.CauseType = "NodeCapacity"
	ReasonUnsupportedPlatform metav1.CauseType = "UnsupportedPlatform"
)

// Nodes reads one node; a missing one is an apierrors NotFound.
type Nodes func(ctx context.Context, name string) (*corev1.Node, error)

// Plugin is PodResizeValidator.
type Plugin struct {
	node Nodes
}

// New returns the plugin reading nodes through node.
func New(node Nodes) *Plugin { return &Plugin{node: node} }

var pods = schema.GroupResource{Resource: "pods"}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || a.Resource.GroupResource() != pods || a.Subresource != "resize" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected a pod but got a %T", a.Object))
	}
	if pod.Spec.NodeName == "" {
		return nil
	}
	old, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected an old pod but got a %T", a.OldObject))
	}
	// The generation moves only when the spec does: nothing to resize.
	if old.Generation == pod.Generation {
		return nil
	}
	node, err := p.node(ctx, pod.Spec.NodeName)
	if apierrors.IsNotFound(err) {
		return admission.NewForbidden(a, fmt.Errorf("node %q not found", pod.Spec.NodeName))
	}
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to get node %q: %w", pod.Spec.NodeName, err))
	}
	if os, ok := node.Labels[corev1.LabelOSStable]; ok && os != "linux" {
		return withCause(admission.NewForbidden(a, fmt.Errorf("pod resize is only supported on linux nodes, node %q is %q", node.Name, os)), ReasonUnsupportedPlatform)
	}
	if err := fits(pod, node.Status.Allocatable); err != nil {
		return withCause(admission.NewForbidden(a, err), ReasonNodeCapacity)
	}
	return nil
}

// fits reports the cpu and memory the pod requests beyond allocatable.
func fits(pod *corev1.Pod, allocatable corev1.ResourceList) error {
	requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	cpu, mem := requests[corev1.ResourceCPU], requests[corev1.ResourceMemory]
	var over []string
	if a := allocatable.Cpu(); cpu.Cmp(*a) > 0 {
		over = append(over, fmt.Sprintf("cpu, requested: %d, allocatable: %d", cpu.MilliValue(), a.MilliValue()))
	}
	if a := allocatable.Memory(); mem.Cmp(*a) > 0 {
		over = append(over, fmt.Sprintf("memory, requested: %d, allocatable: %d", mem.Value(), a.Value()))
	}
	if len(over) > 0 {
		return fmt.Errorf("node didn't have enough allocatable resources: %s", strings.Join(over, "; "))
	}
	return nil
}

// withCause adds the reason to a status error's causes, for clients that
// branch on it.
func withCause(err error, reason metav1.CauseType) error {
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.ErrStatus.Details != nil {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{Type: reason})
	}
	return err
}
