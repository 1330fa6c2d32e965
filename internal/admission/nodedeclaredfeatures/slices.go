package nodedeclaredfeatures

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/dranodeallocatableresources"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/portcullis/portcullis/internal/admission"
)

// draFeature is what a node declares when it can hand out node-allocatable
// resources through DRA.
const draFeature = dranodeallocatableresources.DRANodeAllocatableResourcesFeature

// nodes is where a slice, or one of its devices, is available.
type nodes struct {
	name     *string
	selector *corev1.NodeSelector
	all      *bool
}

// device is what the check needs of a device, in any served version.
type device struct {
	name        string
	allocatable bool // has nodeAllocatableResources
	nodes
}

// slice is what the check needs of a ResourceSlice, in any served version
// (kube-apiserver sees one internal type; here each version has its own).
type slice struct {
	perDevice bool
	nodes
	devices []device
}

func sliceOf(obj runtime.Object) (*slice, bool) {
	switch s := obj.(type) {
	case *resourcev1.ResourceSlice:
		if s == nil {
			return nil, false
		}
		out := &slice{perDevice: isTrue(s.Spec.PerDeviceNodeSelection), nodes: nodes{s.Spec.NodeName, s.Spec.NodeSelector, s.Spec.AllNodes}}
		for _, d := range s.Spec.Devices {
			out.devices = append(out.devices, device{d.Name, len(d.NodeAllocatableResources) > 0, nodes{d.NodeName, d.NodeSelector, d.AllNodes}})
		}
		return out, true
	case *resourcev1beta2.ResourceSlice:
		if s == nil {
			return nil, false
		}
		out := &slice{perDevice: isTrue(s.Spec.PerDeviceNodeSelection), nodes: nodes{s.Spec.NodeName, s.Spec.NodeSelector, s.Spec.AllNodes}}
		for _, d := range s.Spec.Devices {
			out.devices = append(out.devices, device{d.Name, len(d.NodeAllocatableResources) > 0, nodes{d.NodeName, d.NodeSelector, d.AllNodes}})
		}
		return out, true
	case *resourcev1beta1.ResourceSlice:
		if s == nil {
			return nil, false
		}
		out := &slice{perDevice: isTrue(s.Spec.PerDeviceNodeSelection), nodes: nodes{ptrTo(s.Spec.NodeName), s.Spec.NodeSelector, ptrTo(s.Spec.AllNodes)}}
		for _, d := range s.Spec.Devices {
			dev := device{name: d.Name}
			if b := d.Basic; b != nil {
				dev.allocatable = len(b.NodeAllocatableResources) > 0
				dev.nodes = nodes{b.NodeName, b.NodeSelector, b.AllNodes}
			}
			out.devices = append(out.devices, dev)
		}
		return out, true
	}
	return nil, false
}

func (p *Plugin) validateSlice(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	// The type is checked before the gate, as in kube-apiserver.
	s, ok := sliceOf(a.Object)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected a ResourceSlice but got a %T", a.Object))
	}
	if !p.opts.DRANodeAllocatableResources {
		return nil
	}
	// The node list is read once per request, and only if a device needs it.
	var all []*corev1.Node
	var listErr error
	listed := false
	list := func() ([]*corev1.Node, error) {
		if !listed {
			all, listErr = p.opts.ListNodes(ctx)
			listed = true
		}
		return all, listErr
	}
	for _, d := range s.devices {
		if !d.allocatable {
			continue
		}
		where := s.nodes
		if s.perDevice {
			where = d.nodes
		}
		var (
			single   string
			selector *corev1.NodeSelector
			every    bool
		)
		switch {
		case where.name != nil && *where.name != "":
			single = *where.name
		case where.selector != nil:
			selector = where.selector
		case isTrue(where.all):
			every = true
		default:
			return admission.NewForbidden(a, fmt.Errorf("device %q in ResourceSlice has NodeAllocatableResources but does not map to any nodes", d.name))
		}
		if single != "" {
			node, err := p.opts.Node(ctx, single)
			if apierrors.IsNotFound(err) {
				return admission.NewForbidden(a, fmt.Errorf("node %q not found for device %q", single, d.name))
			}
			if err != nil {
				return admission.NewForbidden(a, fmt.Errorf("failed to get node %q for device %q: %w", single, d.name, err))
			}
			if err := declares(a, node); err != nil {
				return err
			}
			continue
		}
		nodes, err := list()
		if err != nil {
			return admission.NewForbidden(a, fmt.Errorf("failed to list nodes for device %q: %w", d.name, err))
		}
		if err := declareAll(a, nodes, selector, every); err != nil {
			return err
		}
	}
	return nil
}

// declareAll checks every node that selector selects (every: all nodes).
func declareAll(a *admission.Attributes, nodes []*corev1.Node, selector *corev1.NodeSelector, every bool) error {
	var sel *nodeaffinity.NodeSelector
	if selector != nil {
		var err error
		if sel, err = nodeaffinity.NewNodeSelector(selector); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("failed to create node selector: %v", err))
		}
	}
	for _, n := range nodes {
		if every || (sel != nil && sel.Match(n)) {
			if err := declares(a, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func declares(a *admission.Attributes, n *corev1.Node) error {
	if !slices.Contains(n.Status.DeclaredFeatures, draFeature) {
		return admission.NewForbidden(a, fmt.Errorf("node %q does not support %s feature", n.Name, draFeature))
	}
	return nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// ptrTo adapts v1beta1's plain fields to the pointers of later versions:
// the zero value means unset there.
func ptrTo[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
