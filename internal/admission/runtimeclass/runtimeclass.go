package runtimeclass

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/tolerations"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "RuntimeClass"

// RuntimeClasses reads a RuntimeClass; a missing one is an apierrors
// NotFound.
type RuntimeClasses func(ctx context.Context, name string) (*nodev1.RuntimeClass, error)

// Plugin is RuntimeClass.
type Plugin struct {
	get RuntimeClasses
}

var (
	_ admission.Mutator   = (*Plugin)(nil)
	_ admission.Validator = (*Plugin)(nil)
)

// New returns the plugin reading RuntimeClasses through get.
func New(get RuntimeClasses) *Plugin { return &Plugin{get: get} }

// The plugin's refusals, in kube-apiserver's words.
var (
	ErrOverheadMismatch = errors.New("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
	ErrOverheadWithout  = errors.New("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
)

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if err != nil || pod == nil || rc == nil {
		return err
	}
	if o := rc.Overhead; o != nil {
		if len(pod.Spec.Overhead) > 0 && !equality.Semantic.DeepEqual(o.PodFixed, pod.Spec.Overhead) {
			return admission.NewForbidden(a, ErrOverheadMismatch)
		}
		pod.Spec.Overhead = o.PodFixed.DeepCopy()
	}
	if s := rc.Scheduling; s != nil {
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = copyMap(s.NodeSelector)
		} else {
			keys := make([]string, 0, len(s.NodeSelector))
			for k := range s.NodeSelector {
				keys = append(keys, k)
			}
			// Sorted, so that of several conflicts the same one is named
			// every time.
			slices.Sort(keys)
			for _, k := range keys {
				want := s.NodeSelector[k]
				if got, ok := pod.Spec.NodeSelector[k]; ok && got != want {
					return admission.NewForbidden(a, fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, want, k, got))
				}
			}
			for _, k := range keys {
				pod.Spec.NodeSelector[k] = s.NodeSelector[k]
			}
		}
		pod.Spec.Tolerations = tolerations.Merge(pod.Spec.Tolerations, s.Tolerations)
	}
	return nil
}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if err != nil || pod == nil {
		return err
	}
	if rc != nil && rc.Overhead != nil {
		if !equality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return admission.NewForbidden(a, ErrOverheadMismatch)
		}
		return nil
	}
	if pod.Spec.Overhead != nil {
		return admission.NewForbidden(a, ErrOverheadWithout)
	}
	return nil
}

// prepare returns the pod of a pod create and the RuntimeClass it names
// (nil when it names none); a nil pod means the request is not the
// plugin's.
func (p *Plugin) prepare(ctx context.Context, a *admission.Attributes) (*corev1.Pod, *nodev1.RuntimeClass, error) {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if pod.Spec.RuntimeClassName == nil {
		return pod, nil, nil
	}
	rc, err := p.get(ctx, *pod.Spec.RuntimeClassName)
	if apierrors.IsNotFound(err) {
		return nil, nil, admission.NewForbidden(a, fmt.Errorf("pod rejected: RuntimeClass %q not found", *pod.Spec.RuntimeClassName))
	}
	if err != nil {
		return nil, nil, err
	}
	return pod, rc, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
