package priority

import (
	"context"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "Priority"

// PriorityClass reads a PriorityClass; a missing one is an apierrors
// NotFound.
type PriorityClass func(ctx context.Context, name string) (*schedulingv1.PriorityClass, error)

// PriorityClasses lists every PriorityClass.
type PriorityClasses func(ctx context.Context) ([]*schedulingv1.PriorityClass, error)

// defaultPriority is a pod's priority when neither it nor a globalDefault
// class names one.
const defaultPriority int32 = 0

// Plugin is Priority.
type Plugin struct {
	get  PriorityClass
	list PriorityClasses
}

var (
	_ admission.Mutator   = (*Plugin)(nil)
	_ admission.Validator = (*Plugin)(nil)
)

// New returns the plugin reading classes through get and list.
func New(get PriorityClass, list PriorityClasses) *Plugin {
	return &Plugin{get: get, list: list}
}

// Admit implements admission.Mutator: it resolves pods' priorities.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	switch a.Operation {
	case admission.Create:
		pod, ok := a.Object.(*corev1.Pod)
		if !ok {
			return errNotPod
		}
		return p.admitCreate(ctx, a, pod)
	case admission.Update:
		pod, ok := a.Object.(*corev1.Pod)
		if !ok {
			return errNotPod
		}
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return errNotPod
		}
		if pod.Spec.Priority == nil {
			pod.Spec.Priority = old.Spec.Priority
		}
		if pod.Spec.PreemptionPolicy == nil {
			pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
		}
	}
	return nil
}

var errNotPod = apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")

func (p *Plugin) admitCreate(ctx context.Context, a *admission.Attributes, pod *corev1.Pod) error {
	name, value, policy, err := p.resolve(ctx, a, pod.Spec.PriorityClassName)
	if err != nil {
		return err
	}
	pod.Spec.PriorityClassName = name
	if pod.Spec.Priority != nil && *pod.Spec.Priority != value {
		return admission.NewForbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, value))
	}
	pod.Spec.Priority = &value
	if policy == nil {
		return nil
	}
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
		return admission.NewForbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy))
	}
	pp := *policy
	pod.Spec.PreemptionPolicy = &pp
	return nil
}

// resolve returns the class name, priority and preemption policy a pod
// naming className gets.
func (p *Plugin) resolve(ctx context.Context, a *admission.Attributes, className string) (string, int32, *corev1.PreemptionPolicy, error) {
	if className == "" {
		def, err := p.globalDefault(ctx)
		if err != nil {
			return "", 0, nil, unknown(fmt.Errorf("error occurred while retrieving default priority class: %w", err))
		}
		if def == nil {
			lower := corev1.PreemptLowerPriority
			return "", defaultPriority, &lower, nil
		}
		return def.Name, def.Value, def.PreemptionPolicy, nil
	}
	pc, err := p.get(ctx, className)
	if apierrors.IsNotFound(err) {
		return "", 0, nil, admission.NewForbidden(a, fmt.Errorf("no PriorityClass with name %v was found", className))
	}
	if err != nil {
		return "", 0, nil, unknown(fmt.Errorf("failed to resolve PriorityClass with name %s: %w", className, err))
	}
	return className, pc.Value, pc.PreemptionPolicy, nil
}

// globalDefault returns the globalDefault class with the lowest value (more
// than one exists only after a race between two creates), or nil.
func (p *Plugin) globalDefault(ctx context.Context) (*schedulingv1.PriorityClass, error) {
	all, err := p.list(ctx)
	if err != nil {
		return nil, err
	}
	var def *schedulingv1.PriorityClass
	for _, pc := range all {
		if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
			def = pc
		}
	}
	return def, nil
}

// Validate implements admission.Validator: at most one PriorityClass is
// the global default.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != schedulingv1.GroupName || a.Resource.Resource != "priorityclasses" {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	pc, ok := a.Object.(*schedulingv1.PriorityClass)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !pc.GlobalDefault {
		return nil
	}
	def, err := p.globalDefault(ctx)
	if err != nil {
		// kube-apiserver formats this one with %v, dropping the chain.
		return unknown(fmt.Errorf("failed to get default priority class: %v", err))
	}
	if def != nil && (a.Operation == admission.Create || def.Name != pc.Name) {
		return admission.NewForbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

// unknownError is how kube-apiserver answers a plugin's plain error: a 500
// without a reason whose message is the error's text, even when the
// error wraps an API status.
type unknownError struct{ err error }

func unknown(err error) error { return &unknownError{err: err} }

func (e *unknownError) Error() string { return e.err.Error() }
func (e *unknownError) Unwrap() error { return e.err }

// Status implements apierrors.APIStatus.
func (e *unknownError) Status() metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: e.err.Error()}
}
