package podnodeselector

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PodNodeSelector"

// NamespaceAnnotation holds a namespace's node selector.
const NamespaceAnnotation = "scheduler.alpha.kubernetes.io/node-selector"

// Namespaces reads a namespace; a missing one is an apierrors NotFound.
type Namespaces func(ctx context.Context, name string) (*corev1.Namespace, error)

// The plugin's refusals, in kube-apiserver's words.
var (
	ErrConflict   = errors.New("pod node label selector conflicts with its namespace node label selector")
	ErrNotAllowed = errors.New("pod node label selector labels conflict with its namespace whitelist")
)

// Plugin is PodNodeSelector.
type Plugin struct {
	get Namespaces
	sel selectors
}

var (
	_ admission.Mutator   = (*Plugin)(nil)
	_ admission.Validator = (*Plugin)(nil)
)

// New returns the plugin configured by config (YAML or JSON; empty for
// none), reading namespaces through get.
func New(config []byte, get Namespaces) (*Plugin, error) {
	sel, err := parseConfig(config)
	if err != nil {
		return nil, err
	}
	return &Plugin{get: get, sel: sel}, nil
}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	nsSel, err := p.namespaceSelector(ctx, a.Namespace)
	if err != nil {
		return err
	}
	if labels.Conflicts(nsSel, pod.Spec.NodeSelector) {
		return forbidden(a, pod, ErrConflict)
	}
	// The pod's own values win; with no conflict they are the same.
	pod.Spec.NodeSelector = labels.Merge(nsSel, pod.Spec.NodeSelector)
	return p.check(a, pod, nsSel)
}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	nsSel, err := p.namespaceSelector(ctx, a.Namespace)
	if err != nil {
		return err
	}
	return p.check(a, pod, nsSel)
}

func (p *Plugin) check(a *admission.Attributes, pod *corev1.Pod, nsSel labels.Set) error {
	if labels.Conflicts(nsSel, pod.Spec.NodeSelector) {
		return forbidden(a, pod, ErrConflict)
	}
	wl := p.sel.whitelists[a.Namespace]
	if len(wl) == 0 {
		return nil
	}
	for k, v := range pod.Spec.NodeSelector {
		if w, ok := wl[k]; !ok || w != v {
			return forbidden(a, pod, ErrNotAllowed)
		}
	}
	return nil
}

// podOf returns the pod of a pod create, nil for any other request
// (kube-apiserver skips a pods request without a pod too).
func podOf(a *admission.Attributes) *corev1.Pod {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, _ := a.Object.(*corev1.Pod)
	return pod
}

// namespaceSelector is the namespace's annotation, else the cluster
// default.
func (p *Plugin) namespaceSelector(ctx context.Context, name string) (labels.Set, error) {
	ns, err := p.get(ctx, name)
	if err != nil {
		// kube-apiserver replaces whatever its store read said with this.
		return nil, apierrors.NewInternalError(fmt.Errorf("namespace %s does not exist", name))
	}
	v, ok := ns.Annotations[NamespaceAnnotation]
	if !ok {
		return p.sel.clusterDefault, nil
	}
	set, err := labels.ConvertSelectorToLabelsMap(v)
	if err != nil {
		return nil, unknown(err)
	}
	return set, nil
}

// forbidden names the pod itself, as kube-apiserver does here (no name for
// a generateName pod), not the request's object name.
func forbidden(a *admission.Attributes, pod *corev1.Pod, err error) error {
	return apierrors.NewForbidden(a.Resource.GroupResource(), pod.Name, err)
}

// unknown is how kube-apiserver answers a plugin's plain error: a 500
// without a reason whose message is the error's text.
func unknown(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: err.Error()}}
}
