package podtopologylabels

import (
	"context"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PodTopologyLabels"

// FeatureGate is the kube-apiserver feature gate the plugin obeys, and
// GateDefault its default in 1.37.
const (
	FeatureGate = "PodTopologyLabelsAdmission"
	GateDefault = true
)

// Nodes reads a node; a missing one is an apierrors NotFound.
type Nodes func(ctx context.Context, name string) (*corev1.Node, error)

// topologyLabels are the node labels kube-apiserver copies.
var topologyLabels = []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// Plugin is PodTopologyLabels.
type Plugin struct {
	nodes   Nodes
	enabled bool
}

var _ admission.Mutator = (*Plugin)(nil)

// New returns the plugin reading nodes through nodes; enabled is the value
// of the PodTopologyLabelsAdmission feature gate.
func New(nodes Nodes, enabled bool) *Plugin {
	return &Plugin{nodes: nodes, enabled: enabled}
}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if !p.enabled || a.Operation != admission.Create || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	var labels *map[string]string
	var node string
	switch a.Subresource {
	case "":
		pod, ok := a.Object.(*corev1.Pod)
		if !ok {
			return unknown(fmt.Sprintf("expected Pod but got %T", a.Object))
		}
		labels, node = &pod.Labels, pod.Spec.NodeName
	case "binding":
		b, ok := a.Object.(*corev1.Binding)
		if !ok {
			return unknown(fmt.Sprintf("expected Binding but got %s", a.Kind.Kind))
		}
		// The scheduler sets only the kind of the target; a binding to
		// anything else is not a node's business.
		if b.Target.Kind != "Node" {
			return nil
		}
		labels, node = &b.Labels, b.Target.Name
	default:
		return nil
	}
	if node == "" {
		return nil
	}
	copied, err := p.labelsOf(ctx, node)
	if err != nil || len(copied) == 0 {
		return err
	}
	if *labels == nil {
		*labels = map[string]string{}
	}
	for k, v := range copied {
		(*labels)[k] = v
	}
	return nil
}

// labelsOf returns the node's topology labels; none for a missing node.
func (p *Plugin) labelsOf(ctx context.Context, name string) (map[string]string, error) {
	n, err := p.nodes(ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, k := range topologyLabels {
		if v, ok := n.Labels[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

// unknown is how kube-apiserver answers the plugin's plain errors: a 500
// with no reason and the error's text.
func unknown(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: msg}}
}
