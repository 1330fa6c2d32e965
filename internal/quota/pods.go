package quota

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/portcullis/portcullis/internal/admission"
)

// PodOptions are the feature gates the pod evaluator follows.
type PodOptions struct {
	// PodLevelResources is kube-apiserver's PodLevelResources gate (beta,
	// on by default): a pod's spec.resources count instead of its
	// containers', and a pod that sets them needs no per-container values.
	PodLevelResources bool
	// PodLevelResourcesFixKubeletQOSClass is the gate of that name (beta,
	// on by default): with it, spec.resources decide the QoS class (and
	// so the BestEffort scopes) only when they set cpu, memory or hugepages.
	PodLevelResourcesFixKubeletQOSClass bool
	// Now is the clock for a deleted pod's grace period; nil is time.Now.
	Now func() time.Time
}

// deviceClassPrefix names the implicit extended resources of DRA device
// classes (resource.k8s.io's ResourceDeviceClassPrefix).
const deviceClassPrefix = "deviceclass.resource.kubernetes.io/"

var podCountName = ObjectCountName(schema.GroupResource{Resource: "pods"})

// podResources are the quota names a pod is charged under, besides
// hugepages and extended resources.
var podResources = []corev1.ResourceName{
	podCountName,
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods,
}

var podResourcePrefixes = []string{corev1.ResourceHugePagesPrefix, corev1.ResourceRequestsHugePagesPrefix}

// constrained are the names for which a quota requires every container
// to state a value.
var constrained = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory,
}

// NewPods is the evaluator of pods (kube-apiserver's pod evaluator).
func NewPods(opts PodOptions) *Evaluator {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p := &pods{opts: opts}
	return &Evaluator{
		GroupResource: schema.GroupResource{Resource: "pods"},
		handles:       p.handles,
		matching:      podMatching,
		scope:         p.scope,
		usage:         p.usage,
		constraints:   p.constraints,
	}
}

type pods struct{ opts PodOptions }

func toPod(obj runtime.Object) (*corev1.Pod, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("expect *v1.Pod, got %T", obj)
	}
	return pod, nil
}

// handles: creation, a resize, and an update that moves the pod in or
// out of the Terminating scope (activeDeadlineSeconds set or cleared).
func (p *pods) handles(a *admission.Attributes) bool {
	switch a.Subresource {
	case "":
		if a.Operation == admission.Update {
			pod, err1 := toPod(a.Object)
			old, err2 := toPod(a.OldObject)
			if err1 != nil || err2 != nil {
				return false
			}
			if isTerminating(old) != isTerminating(pod) {
				return true
			}
		}
		return a.Operation == admission.Create
	case "resize":
		return a.Operation == admission.Update
	}
	return false
}

func podMatching(in []corev1.ResourceName) []corev1.ResourceName {
	out := Intersection(in, podResources)
	for _, n := range in {
		if containsPrefix(podResourcePrefixes, n) || isExtendedForQuota(n) {
			out = append(out, n)
		}
	}
	return out
}

// isNative says whether n is in the kubernetes.io namespace (unprefixed
// names are).
func isNative(n corev1.ResourceName) bool {
	return !strings.Contains(string(n), "/") || strings.Contains(string(n), corev1.ResourceDefaultNamespacePrefix)
}

// isExtendedForQuota says whether a quota name is requests.<extended
// resource> (or of a DRA device class).
func isExtendedForQuota(n corev1.ResourceName) bool {
	s := string(n)
	if !strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return !isNative(n) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix+deviceClassPrefix)
}

// isExtended says whether a container resource is an extended resource,
// one charged as requests.<name>.
func isExtended(n corev1.ResourceName) bool {
	if strings.HasPrefix(string(n), deviceClassPrefix) {
		return true
	}
	if isNative(n) || strings.HasPrefix(string(n), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(n))) == 0
}

func isTerminating(pod *corev1.Pod) bool {
	return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
}

func (p *pods) scope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	pod, err := toPod(obj)
	if err != nil {
		return false, err
	}
	switch sel.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return isTerminating(pod), nil
	case corev1.ResourceQuotaScopeNotTerminating:
		return !isTerminating(pod), nil
	case corev1.ResourceQuotaScopeBestEffort:
		return p.qos(pod) == corev1.PodQOSBestEffort, nil
	case corev1.ResourceQuotaScopeNotBestEffort:
		return p.qos(pod) != corev1.PodQOSBestEffort, nil
	case corev1.ResourceQuotaScopePriorityClass:
		if sel.Operator == corev1.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != "", nil
		}
		if pod.Spec.PriorityClassName == "" {
			return selectorMatches(sel)
		}
		return selectorMatches(sel, pod.Spec.PriorityClassName)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return crossNamespaceAffinity(pod), nil
	}
	return false, nil
}

func crossNamespaceAffinity(pod *corev1.Pod) bool {
	if pod.Spec.Affinity == nil {
		return false
	}
	cross := func(t *corev1.PodAffinityTerm) bool { return len(t.Namespaces) != 0 || t.NamespaceSelector != nil }
	any := func(req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) bool {
		for i := range req {
			if cross(&req[i]) {
				return true
			}
		}
		for i := range pref {
			if cross(&pref[i].PodAffinityTerm) {
				return true
			}
		}
		return false
	}
	if a := pod.Spec.Affinity.PodAffinity; a != nil && any(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	if a := pod.Spec.Affinity.PodAntiAffinity; a != nil && any(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	return false
}

// qos is the pod's QoS class: its status's, else computed as the kubelet does.
func (p *pods) qos(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	if p.opts.PodLevelResources && pod.Spec.Resources != nil &&
		(!p.opts.PodLevelResourcesFixKubeletQOSClass || resourcehelper.IsPodLevelResourcesSet(pod)) {
		return requirementsQOS(pod.Spec.Resources)
	}
	var class corev1.PodQOSClass
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			c := requirementsQOS(&cs[i].Resources)
			switch {
			case c == corev1.PodQOSBurstable:
				return c
			case class == "":
				class = c
			case class != c:
				return corev1.PodQOSBurstable
			}
		}
	}
	if class == "" {
		return corev1.PodQOSBestEffort
	}
	return class
}

func requirementsQOS(r *corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var class corev1.PodQOSClass
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[n], r.Limits[n]
		c := corev1.PodQOSGuaranteed
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			c = corev1.PodQOSBestEffort
		}
		if class == "" {
			class = c
		} else if class != c {
			return corev1.PodQOSBurstable
		}
	}
	return class
}

// constraints: a quota on cpu or memory requests or limits needs every
// container to state them, unless the pod sets pod-level resources.
func (p *pods) constraints(required []corev1.ResourceName, obj runtime.Object) error {
	pod, err := toPod(obj)
	if err != nil {
		return err
	}
	if p.opts.PodLevelResources && resourcehelper.IsPodLevelResourcesSet(pod) {
		return nil
	}
	need := Intersection(required, constrained)
	missing := map[corev1.ResourceName][]string{}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			has := containerUsage(cs[i].Resources.Requests, cs[i].Resources.Limits)
			for _, n := range need {
				if _, ok := has[n]; !ok {
					missing[n] = append(missing[n], cs[i].Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var msgs []string
	for _, n := range need {
		names, ok := missing[n]
		if !ok {
			continue
		}
		sort.Strings(names)
		msgs = append(msgs, fmt.Sprintf("%s for: %s", n, strings.Join(dedupe(names), ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// containerUsage maps requests and limits to the quota names they are
// charged under.
func containerUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	for _, r := range []struct {
		name           corev1.ResourceName
		request, limit corev1.ResourceName
	}{
		{corev1.ResourceCPU, corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU},
		{corev1.ResourceMemory, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory},
		{corev1.ResourceEphemeralStorage, corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage},
	} {
		if q, ok := requests[r.name]; ok {
			out[r.name] = q
			out[r.request] = q
		}
		if q, ok := limits[r.name]; ok {
			out[r.limit] = q
		}
	}
	for n, q := range requests {
		if strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) {
			out[n] = q
			out[corev1.DefaultResourceRequestsPrefix+n] = q
		}
		if isExtended(n) {
			out[corev1.DefaultResourceRequestsPrefix+n] = q
		}
	}
	return out
}

// usage: one pod, and while it runs (not finished, not past its
// deletion grace period) its effective requests and limits.
func (p *pods) usage(obj runtime.Object) (corev1.ResourceList, error) {
	pod, err := toPod(obj)
	if err != nil {
		return corev1.ResourceList{}, err
	}
	out := corev1.ResourceList{podCountName: *resource.NewQuantity(1, resource.DecimalSI)}
	if !p.counts(pod) {
		return out, nil
	}
	// Status resources count because in-place resize is GA (locked on).
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true, SkipPodLevelResources: !p.opts.PodLevelResources}
	return Add(out, containerUsage(resourcehelper.PodRequests(pod, opts), resourcehelper.PodLimits(pod, opts))), nil
}

func (p *pods) counts(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		end := pod.DeletionTimestamp.Add(time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second)
		if p.opts.Now().After(end) {
			return false
		}
	}
	return true
}
