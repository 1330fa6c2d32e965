package limitranger

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// validatePod checks every container against the Container-type items
// of lr and the pod's total against the Pod-type items.
func validatePod(lr *corev1.LimitRange, pod *corev1.Pod, opts Options) error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		switch item.Type {
		case corev1.LimitTypeContainer:
			for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for i := range cs {
					errs = append(errs, checkItem(item, cs[i].Resources.Requests, cs[i].Resources.Limits)...)
				}
			}
		case corev1.LimitTypePod:
			errs = append(errs, checkItem(item, podRequests(pod, opts), podLimits(pod, opts))...)
		}
	}
	return utilerrors.NewAggregate(errs)
}

func checkItem(item corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	var errs []error
	kind := string(item.Type)
	for _, n := range sortedNames(item.Min) {
		if err := minConstraint(kind, n, item.Min[n], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range sortedNames(item.Max) {
		if err := maxConstraint(kind, n, item.Max[n], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range sortedNames(item.MaxLimitRequestRatio) {
		if err := ratioConstraint(kind, n, item.MaxLimitRequestRatio[n], requests, limits); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validateClaim checks a claim's requests against the
// PersistentVolumeClaim-type items of lr. A claim's limits are not user
// input here, so max bounds the request.
func validateClaim(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		kind := string(item.Type)
		for _, n := range sortedNames(item.Min) {
			if err := minConstraint(kind, n, item.Min[n], pvc.Spec.Resources.Requests, nil); err != nil {
				errs = append(errs, err)
			}
		}
		for _, n := range sortedNames(item.Max) {
			if err := maxRequestConstraint(kind, n, item.Max[n], pvc.Spec.Resources.Requests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return utilerrors.NewAggregate(errs)
}

// comparable gives the three quantities at one precision: milli-units
// when none would overflow, else units.
func comparable(request, limit, enforced resource.Quantity) (int64, int64, int64) {
	r, l, e := request.Value(), limit.Value(), enforced.Value()
	if r <= resource.MaxMilliValue && l <= resource.MaxMilliValue && e <= resource.MaxMilliValue {
		return request.MilliValue(), limit.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := comparable(req, lim, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, kind, enforced.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	case hasLim && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, kind, enforced.String(), lim.String())
	}
	return nil
}

func maxConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := comparable(req, lim, enforced)
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, kind, enforced.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, kind, enforced.String(), lim.String())
	case hasReq && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	}
	return nil
}

func maxRequestConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[name]
	r, _, e := comparable(req, resource.Quantity{}, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, kind, enforced.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, kind, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(kind string, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, _ := comparable(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, kind, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, kind, enforced.String())
	}
	ratio := float64(l) / float64(r)
	observed, allowed := ratio, float64(enforced.Value())
	if enforced.Value() <= resource.MaxMilliValue {
		observed, allowed = ratio*1000, float64(enforced.MilliValue())
	}
	if observed > allowed {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, kind, enforced.String(), ratio)
	}
	return nil
}

// podRequests and podLimits are a pod's effective totals from its spec
// alone (no overhead, no status): the sum of its containers and
// sidecars, or the largest init container with the sidecars started
// before it, whichever is larger; with PodLevelResources, the pod's own
// cpu and memory win.
func podRequests(pod *corev1.Pod, opts Options) corev1.ResourceList {
	var level corev1.ResourceList
	if pod.Spec.Resources != nil {
		level = pod.Spec.Resources.Requests
	}
	return podTotal(pod, opts, level, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
}

func podLimits(pod *corev1.Pod, opts Options) corev1.ResourceList {
	var level corev1.ResourceList
	if pod.Spec.Resources != nil {
		level = pod.Spec.Resources.Limits
	}
	return podTotal(pod, opts, level, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
}

func podTotal(pod *corev1.Pod, opts Options, level corev1.ResourceList, of func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		addTo(total, of(&pod.Spec.Containers[i]))
	}
	sidecars, inits := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		var need corev1.ResourceList
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addTo(total, of(c))
			addTo(sidecars, of(c))
			need = sidecars
		} else {
			need = corev1.ResourceList{}
			addTo(need, of(c))
			addTo(need, sidecars)
		}
		maxInto(inits, need)
	}
	maxInto(total, inits)
	if opts.PodLevelResources {
		for n, q := range level {
			if n == corev1.ResourceCPU || n == corev1.ResourceMemory {
				total[n] = q
			}
		}
	}
	return total
}

func addTo(list, add corev1.ResourceList) {
	for n, q := range add {
		if v, ok := list[n]; ok {
			v.Add(q)
			list[n] = v
		} else {
			list[n] = q.DeepCopy()
		}
	}
}

func maxInto(list, other corev1.ResourceList) {
	for n, q := range other {
		if v, ok := list[n]; !ok || q.Cmp(v) > 0 {
			list[n] = q.DeepCopy()
		}
	}
}
