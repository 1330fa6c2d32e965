package quota

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// UsageStatsOptions say which of a namespace's stored objects a quota
// counts (those in every scope and scope selector expression) and which
// quota names it tracks.
type UsageStatsOptions struct {
	Scopes        []corev1.ResourceQuotaScope
	ScopeSelector *corev1.ScopeSelector
	// Resources are the tracked names: each is in the result, zero when
	// nothing counts.
	Resources []corev1.ResourceName
}

// UsageStats sums what items (the stored objects of the evaluator's
// resource in one namespace) consume, counting only those in every scope,
// as kube-controller-manager's quota controller does. The sum holds every
// name the counted objects consume; callers mask it.
//
// An object that a scope cannot be decided for (the object is not of the
// evaluator's type, a selector is malformed) ends the sum there without
// an error, as kube-controller-manager does: the usage is then what was
// counted before it.
func (e *Evaluator) UsageStats(items []runtime.Object, opts UsageStatsOptions) (corev1.ResourceList, error) {
	used := corev1.ResourceList{}
	for _, n := range opts.Resources {
		used[n] = resource.Quantity{Format: resource.DecimalSI}
	}
	sels := make([]corev1.ScopedResourceSelectorRequirement, 0, len(opts.Scopes))
	for _, s := range opts.Scopes {
		sels = append(sels, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if opts.ScopeSelector != nil {
		sels = append(sels, opts.ScopeSelector.MatchExpressions...)
	}
	for _, item := range items {
		// Every scope is decided, without stopping at the first miss, so
		// that a later undecidable one ends the sum as it does in kube.
		in := true
		for _, sel := range sels {
			ok, err := e.inScope(sel, item)
			if err != nil {
				return used, nil
			}
			in = in && ok
		}
		if !in {
			continue
		}
		u, err := e.usage(item)
		if err != nil {
			return used, err
		}
		used = Add(used, u)
	}
	return used, nil
}

// Lister lists the stored objects of a resource in a namespace.
type Lister func(ctx context.Context, gr schema.GroupResource, namespace string) ([]runtime.Object, error)

// CalculateUsage is what the stored objects of q's namespace, in q's
// scopes, consume of q's spec.hard: for every name of spec.hard that one
// of evaluators charges, the sum over the evaluators that charge it
// (kube's quota.CalculateUsage). Names no evaluator charges are absent.
// An evaluator whose objects cannot be listed or measured leaves its
// names out of the result and its error in the returned one; the others
// are still computed.
func CalculateUsage(ctx context.Context, q *corev1.ResourceQuota, evaluators []*Evaluator, list Lister) (corev1.ResourceList, error) {
	hard := ResourceNames(q.Spec.Hard)
	var potential []corev1.ResourceName
	for _, e := range evaluators {
		potential = append(potential, e.MatchingResources(hard)...)
	}
	matched := Intersection(hard, potential)
	opts := UsageStatsOptions{Scopes: q.Spec.Scopes, ScopeSelector: q.Spec.ScopeSelector}
	var errs []error
	used := corev1.ResourceList{}
	for _, e := range evaluators {
		names := e.MatchingResources(matched)
		if len(names) == 0 {
			continue
		}
		opts.Resources = names
		u, err := usageOf(ctx, e, q.Namespace, opts, list)
		if err != nil {
			errs = append(errs, err)
			matched = slices.DeleteFunc(matched, func(n corev1.ResourceName) bool { return slices.Contains(names, n) })
			continue
		}
		used = Add(used, u)
	}
	return Mask(used, matched), errors.Join(errs...)
}

func usageOf(ctx context.Context, e *Evaluator, ns string, opts UsageStatsOptions, list Lister) (corev1.ResourceList, error) {
	items, err := list(ctx, e.GroupResource, ns)
	if err != nil {
		return nil, fmt.Errorf("failed to list content: %w", err)
	}
	return e.UsageStats(items, opts)
}
