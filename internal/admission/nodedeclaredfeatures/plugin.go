package nodedeclaredfeatures

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "NodeDeclaredFeatureValidator"

// Nodes reads one node; a missing one is an apierrors NotFound.
type Nodes func(ctx context.Context, name string) (*corev1.Node, error)

// NodeList lists every node.
type NodeList func(ctx context.Context) ([]*corev1.Node, error)

// Options are what the plugin needs.
type Options struct {
	Node      Nodes
	ListNodes NodeList
	// Version is the server's version ("v1.37.2"): features retired
	// before it are no longer required of nodes.
	Version string
	// DRANodeAllocatableResources is the feature gate of the same name.
	DRANodeAllocatableResources bool
}

// ErrNoNodes is New's error without node reads.
var ErrNoNodes = errors.New(Name + ": missing node reads")

// Plugin is NodeDeclaredFeatureValidator.
type Plugin struct {
	opts      Options
	version   *version.Version
	framework *ndf.Framework
}

// New returns the plugin, or an error for a version that does not parse.
func New(opts Options) (*Plugin, error) {
	if opts.Node == nil || opts.ListNodes == nil {
		return nil, ErrNoNodes
	}
	v, err := version.Parse(opts.Version)
	if err != nil {
		return nil, fmt.Errorf("failed to parse version: %w", err)
	}
	return &Plugin{opts: opts, version: v, framework: ndf.DefaultFramework}, nil
}

var (
	pods           = schema.GroupResource{Resource: "pods"}
	resourceSlices = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
)

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	switch a.Resource.GroupResource() {
	case pods:
		return p.validatePod(ctx, a)
	case resourceSlices:
		return p.validateSlice(ctx, a)
	}
	return nil
}

func (p *Plugin) validatePod(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || (a.Subresource != "" && a.Subresource != "resize") {
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
	// The generation moves only when the spec does.
	if old.Generation == pod.Generation {
		return nil
	}
	reqs, err := p.framework.InferForPodUpdate(
		&ndf.PodInfo{Spec: &old.Spec, Status: &old.Status},
		&ndf.PodInfo{Spec: &pod.Spec, Status: &pod.Status}, p.version)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to infer pod capability requirements: %w", err))
	}
	if reqs.IsEmpty() {
		return nil
	}
	node, err := p.opts.Node(ctx, pod.Spec.NodeName)
	if apierrors.IsNotFound(err) {
		return admission.NewForbidden(a, fmt.Errorf("node %q not found", pod.Spec.NodeName))
	}
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to get node %q: %w", pod.Spec.NodeName, err))
	}
	res, err := p.framework.MatchNode(reqs, node)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to match pod requirements against node %q: %w", node.Name, err))
	}
	if !res.IsMatch {
		return admission.NewForbidden(a, fmt.Errorf("pod update requires features %s which are not available on node %q", strings.Join(res.UnsatisfiedRequirements, ", "), node.Name))
	}
	return nil
}
