package resourcequota

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/quota"
)

// check charges one request to quotas: it returns the quotas with the
// request's usage added to status.used, or the error refusing it.
// Unchanged quotas come back as given.
func check(quotas []corev1.ResourceQuota, a *admission.Attributes, ev *quota.Evaluator, limited []LimitedResource) ([]corev1.ResourceQuota, error) {
	if !ev.Handles(a) {
		return quotas, nil
	}
	obj := a.Object
	gr := a.Resource.GroupResource()

	// kube-apiserver ignores an object its scope functions cannot read.
	limitedScopes, err := matchedLimitedScopes(ev, a, limited)
	if err != nil {
		return quotas, nil
	}
	var limitedNames []corev1.ResourceName
	if lr := limitedFor(limited, gr); len(lr) > 0 {
		usage, err := ev.Usage(obj)
		if err != nil {
			return quotas, err
		}
		limitedNames = limitedByDefault(usage, lr)
	}

	var interesting []int
	var restricted []corev1.ResourceName
	var restrictedScopes []corev1.ScopedResourceSelectorRequirement
	for i := range quotas {
		q := &quotas[i]
		scopes, err := ev.MatchingScopes(obj, quota.ScopeSelectors(q))
		if err != nil {
			return nil, fmt.Errorf("error matching scopes of quota %s, err: %w", q.Name, err)
		}
		restrictedScopes = append(restrictedScopes, scopes...)
		match, err := ev.Matches(q, obj)
		if err != nil {
			return quotas, err
		}
		if !match {
			continue
		}
		names := ev.MatchingResources(quota.ResourceNames(q.Status.Hard))
		if err := ev.Constraints(names, obj); err != nil {
			return nil, admission.NewForbidden(a, fmt.Errorf("failed quota: %s: %w", q.Name, err))
		}
		if !hasUsageStats(q, names) {
			return nil, admission.NewForbidden(a, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, quota.PrettyPrintNames(names)))
		}
		interesting = append(interesting, i)
		restricted = append(restricted, names...)
	}

	// An object created without a namespace gets the request's before
	// its usage is computed, as kube-apiserver does.
	if m, err := meta.Accessor(obj); a.Namespace != "" && err == nil && m.GetNamespace() == "" {
		m.SetNamespace(a.Namespace)
	}
	usage, err := ev.Usage(obj)
	if err != nil {
		return quotas, err
	}
	if neg := quota.IsNegative(usage); len(neg) > 0 {
		return nil, admission.NewForbidden(a, fmt.Errorf("quota usage is negative for resource(s): %s", quota.PrettyPrintNames(neg)))
	}

	delta := make(map[int]corev1.ResourceList, len(interesting))
	for _, i := range interesting {
		delta[i] = usage
	}
	var deltaUncovered corev1.ResourceList
	if a.Operation == admission.Create && len(interesting) == 0 {
		deltaUncovered = usage
	}
	if a.Operation == admission.Update {
		if a.OldObject == nil {
			return nil, admission.NewForbidden(a, fmt.Errorf("unable to get previous usage since prior version of object was not found"))
		}
		// An update charges only the growth, and only to the quotas
		// that already covered the old object; a quota the object has
		// just moved into is charged all of it.
		if m, err := meta.Accessor(a.OldObject); err == nil {
			if m.GetResourceVersion() != "" {
				prev, err := ev.Usage(a.OldObject)
				if err != nil {
					return quotas, err
				}
				grown := quota.SubtractWithNonNegativeResult(usage, prev)
				if len(interesting) == 0 {
					deltaUncovered = grown
				}
				for _, i := range interesting {
					match, err := ev.Matches(&quotas[i], a.OldObject)
					if err != nil {
						return quotas, err
					}
					if match {
						delta[i] = grown
					}
				}
			} else if len(interesting) == 0 {
				deltaUncovered = usage
			}
		}
	}
	for i := range delta {
		delta[i] = quota.RemoveZeros(delta[i])
		if len(delta[i]) == 0 {
			delete(delta, i)
		}
	}
	if len(interesting) != 0 {
		if len(delta) == 0 {
			return quotas, nil
		}
	} else if len(quota.RemoveZeros(deltaUncovered)) == 0 {
		return quotas, nil
	}

	if uncovered := quota.Difference(limitedNames, restricted); len(uncovered) > 0 {
		return quotas, admission.NewForbidden(a, fmt.Errorf("insufficient quota to consume: %v", strings.Join(names(uncovered), ",")))
	}
	if uncovered := ev.UncoveredScopes(limitedScopes, restrictedScopes); len(uncovered) > 0 {
		return quotas, fmt.Errorf("insufficient quota to match these scopes: %v", uncovered)
	}
	if len(interesting) == 0 {
		return quotas, nil
	}

	out := copyQuotas(quotas)
	for _, i := range interesting {
		d, ok := delta[i]
		if !ok {
			continue
		}
		q := &out[i]
		requested := quota.Mask(d, quota.ResourceNames(q.Status.Hard))
		used := quota.Add(q.Status.Used, requested)
		// A status write records what the object already holds (a
		// claim's allocated storage): it is charged but never refused.
		if a.Subresource != "status" {
			if ok, exceeded := quota.LessThanOrEqual(quota.Mask(used, quota.ResourceNames(requested)), q.Status.Hard); !ok {
				return nil, admission.NewForbidden(a, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
					q.Name,
					quota.PrettyPrint(quota.Mask(requested, exceeded)),
					quota.PrettyPrint(quota.Mask(q.Status.Used, exceeded)),
					quota.PrettyPrint(quota.Mask(q.Status.Hard, exceeded))))
			}
		}
		q.Status.Used = used
	}
	return out, nil
}

func names(ns []corev1.ResourceName) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}

func copyQuotas(in []corev1.ResourceQuota) []corev1.ResourceQuota {
	out := make([]corev1.ResourceQuota, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

func limitedFor(limited []LimitedResource, gr schema.GroupResource) []LimitedResource {
	var out []LimitedResource
	for _, l := range limited {
		if l.APIGroup == gr.Group && l.Resource == gr.Resource {
			out = append(out, l)
		}
	}
	return out
}

// limitedByDefault are the names of positive usage that contain one of a
// limited resource's matchContains.
func limitedByDefault(usage corev1.ResourceList, limited []LimitedResource) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, l := range limited {
		for n, q := range usage {
			if q.Sign() != 1 {
				continue
			}
			if slices.ContainsFunc(l.MatchContains, func(s string) bool { return strings.Contains(string(n), s) }) {
				out = append(out, n)
			}
		}
	}
	return out
}

// matchedLimitedScopes are the limited scopes (of every limited resource,
// as kube-apiserver collects them) the object falls in.
func matchedLimitedScopes(ev *quota.Evaluator, a *admission.Attributes, limited []LimitedResource) ([]corev1.ScopedResourceSelectorRequirement, error) {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, l := range limited {
		m, err := ev.MatchingScopes(a.Object, l.MatchScopes)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}

// hasUsageStats says whether the quota controller has recorded usage for
// every hard limit among names.
func hasUsageStats(q *corev1.ResourceQuota, names []corev1.ResourceName) bool {
	for n := range q.Status.Hard {
		if !slices.Contains(names, n) {
			continue
		}
		if _, ok := q.Status.Used[n]; !ok {
			return false
		}
	}
	return true
}
