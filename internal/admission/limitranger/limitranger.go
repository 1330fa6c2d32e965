package limitranger

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "LimitRanger"

// Annotation is the pod annotation that says which defaults were applied.
const Annotation = "kubernetes.io/limit-ranger"

// LimitRanges lists the LimitRanges of a namespace (none is an empty
// list, not an error).
type LimitRanges func(ctx context.Context, namespace string) ([]*corev1.LimitRange, error)

// Options are the feature gates the plugin follows.
type Options struct {
	// PodLevelResources is kube-apiserver's PodLevelResources gate
	// (beta, on by default in 1.37): a pod's spec.resources override the
	// sum of its containers' cpu and memory for the Pod limit type.
	PodLevelResources bool
}

// Plugin is LimitRanger.
type Plugin struct {
	list LimitRanges
	opts Options
}

var (
	_ admission.Mutator   = (*Plugin)(nil)
	_ admission.Validator = (*Plugin)(nil)
)

// New returns the plugin reading LimitRanges through list.
func New(list LimitRanges, opts Options) *Plugin {
	return &Plugin{list: list, opts: opts}
}

var (
	podKind = schema.GroupKind{Kind: "Pod"}
	pvcKind = schema.GroupKind{Kind: "PersistentVolumeClaim"}
)

// Admit implements admission.Mutator: containers get the defaults.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	return p.run(ctx, a, func(lr *corev1.LimitRange, obj runtime.Object) error {
		if pod, ok := obj.(*corev1.Pod); ok && a.Resource.Resource == "pods" {
			applyDefaults(lr, pod)
		}
		return nil
	})
}

// Validate implements admission.Validator: min, max and ratios hold.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	return p.run(ctx, a, func(lr *corev1.LimitRange, obj runtime.Object) error {
		switch o := obj.(type) {
		case *corev1.Pod:
			if a.Resource.Resource == "pods" {
				return validatePod(lr, o, p.opts)
			}
		case *corev1.PersistentVolumeClaim:
			if a.Resource.Resource == "persistentvolumeclaims" {
				return validateClaim(lr, o)
			}
		}
		return nil
	})
}

// handles says whether kube-apiserver's LimitRanger looks at a request.
// Containers cannot change on a pod update (validation refuses it), so
// only pods/resize, which changes their resources, is checked again.
func handles(a *admission.Attributes) bool {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return false
	}
	kind := a.Kind.GroupKind()
	if a.Subresource == "resize" && kind == podKind && a.Operation == admission.Update {
		return true
	}
	if a.Subresource != "" {
		return false
	}
	if kind == podKind && a.Operation == admission.Update {
		return false
	}
	return kind == podKind || kind == pvcKind
}

func (p *Plugin) run(ctx context.Context, a *admission.Attributes, check func(*corev1.LimitRange, runtime.Object) error) error {
	if !handles(a) {
		return nil
	}
	if a.OldObject != nil {
		old, err := meta.Accessor(a.OldObject)
		if err != nil {
			return admission.NewForbidden(a, err)
		}
		// An object on its way out keeps what it has.
		if old.GetDeletionTimestamp() != nil {
			return nil
		}
	}
	items, err := p.list(ctx, a.Namespace)
	if err != nil {
		return admission.NewForbidden(a, &listError{op: a.Operation, resource: a.Resource, err: err})
	}
	for _, lr := range items {
		if err := check(lr, a.Object); err != nil {
			return admission.NewForbidden(a, err)
		}
	}
	return nil
}

// sortedNames gives a ResourceList's names in order, so that a request
// always gets the same answer.
func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// applyDefaults gives every container the Container-type defaults of lr
// it does not set itself. The annotation says what this LimitRange set;
// a later LimitRange that sets anything replaces it, as in kube-apiserver.
func applyDefaults(lr *corev1.LimitRange, pod *corev1.Pod) {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		for n, q := range item.DefaultRequest {
			requests[n] = q.DeepCopy()
		}
		for n, q := range item.Default {
			limits[n] = q.DeepCopy()
		}
	}
	var set []string
	for i := range pod.Spec.Containers {
		set = mergeContainer(&pod.Spec.Containers[i], requests, limits, "container", set)
	}
	for i := range pod.Spec.InitContainers {
		set = mergeContainer(&pod.Spec.InitContainers[i], requests, limits, "init container", set)
	}
	if len(set) == 0 {
		return
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[Annotation] = "LimitRanger plugin set: " + strings.Join(set, "; ")
}

// mergeContainer adds the defaults c lacks and appends what it set to
// set. Empty lists are left nil: kube-apiserver creates them, but they
// do not survive encoding.
func mergeContainer(c *corev1.Container, requests, limits corev1.ResourceList, what string, set []string) []string {
	fill := func(dst *corev1.ResourceList, defaults corev1.ResourceList) []string {
		var names []string
		for _, n := range sortedNames(defaults) {
			if _, ok := (*dst)[n]; ok {
				continue
			}
			if *dst == nil {
				*dst = corev1.ResourceList{}
			}
			(*dst)[n] = defaults[n].DeepCopy()
			names = append(names, string(n))
		}
		return names
	}
	setLimits := fill(&c.Resources.Limits, limits)
	setRequests := fill(&c.Resources.Requests, requests)
	if len(setRequests) > 0 {
		set = append(set, strings.Join(setRequests, ", ")+fmt.Sprintf(" request for %s %s", what, c.Name))
	}
	if len(setLimits) > 0 {
		set = append(set, strings.Join(setLimits, ", ")+fmt.Sprintf(" limit for %s %s", what, c.Name))
	}
	return set
}
