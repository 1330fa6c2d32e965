package quota

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/portcullis/portcullis/internal/admission"
)

// Evaluator knows what one resource consumes: which quota names it is
// charged under, which scopes it falls in, and its usage.
type Evaluator struct {
	// GroupResource is the resource evaluated.
	GroupResource schema.GroupResource
	// handles says which writes change usage (an object count: creates).
	handles func(a *admission.Attributes) bool
	// matching keeps the quota resource names the evaluator charges.
	matching func(names []corev1.ResourceName) []corev1.ResourceName
	// scope says whether an object is in a scope; nil is a resource that
	// no scope applies to, so no scoped quota covers it.
	scope func(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error)
	// usage is what an object consumes.
	usage func(obj runtime.Object) (corev1.ResourceList, error)
	// constraints refuses an object that a quota on required cannot
	// account for (a pod without the requests the quota limits); nil: none.
	constraints func(required []corev1.ResourceName, obj runtime.Object) error
}

// Handles says whether the write changes the usage this evaluator counts.
func (e *Evaluator) Handles(a *admission.Attributes) bool { return e.handles(a) }

// MatchingResources keeps the names of a quota's hard limits that this
// evaluator charges.
func (e *Evaluator) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	return e.matching(names)
}

// Usage is what obj consumes.
func (e *Evaluator) Usage(obj runtime.Object) (corev1.ResourceList, error) { return e.usage(obj) }

// Constraints refuses obj when it cannot be charged for required.
func (e *Evaluator) Constraints(required []corev1.ResourceName, obj runtime.Object) error {
	if e.constraints == nil {
		return nil
	}
	return e.constraints(required, obj)
}

// ScopeSelectors are a quota's scopes (as Exists requirements) followed
// by its scopeSelector's expressions.
func ScopeSelectors(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// Matches says whether q limits something obj consumes and obj is in
// every one of q's scopes.
func (e *Evaluator) Matches(q *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	if len(e.matching(ResourceNames(q.Status.Hard))) == 0 {
		return false, nil
	}
	for _, sel := range ScopeSelectors(q) {
		in, err := e.inScope(sel, obj)
		if err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

func (e *Evaluator) inScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	if e.scope == nil {
		return false, nil
	}
	return e.scope(sel, obj)
}

// MatchingScopes keeps the selectors obj falls in.
func (e *Evaluator) MatchingScopes(obj runtime.Object, sels []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	var out []corev1.ScopedResourceSelectorRequirement
	if e.scope == nil {
		return out, nil
	}
	for _, sel := range sels {
		in, err := e.scope(sel, obj)
		if err != nil {
			return nil, fmt.Errorf("error on matching scope %v: %w", sel, err)
		}
		if in {
			out = append(out, sel)
		}
	}
	return out, nil
}

// UncoveredScopes are the limited scopes that no matched quota scope
// names (by scope name alone, as kube-apiserver compares them).
func (e *Evaluator) UncoveredScopes(limited, matched []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	if e.scope == nil {
		return out
	}
	for _, l := range limited {
		covered := false
		for _, m := range matched {
			if m.ScopeName == l.ScopeName {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, l)
		}
	}
	return out
}

// ObjectCountName is the quota name counting objects of gr:
// count/<resource>[.<group>].
func ObjectCountName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// NewObjectCount counts created objects of gr under count/<resource>.<group>
// and, when alias is set, under that legacy name too (configmaps, secrets, ...).
func NewObjectCount(gr schema.GroupResource, alias corev1.ResourceName) *Evaluator {
	names := []corev1.ResourceName{ObjectCountName(gr)}
	if alias != "" {
		names = append(names, alias)
	}
	return &Evaluator{
		GroupResource: gr,
		handles: func(a *admission.Attributes) bool {
			return a.Subresource == "" && a.Operation == admission.Create
		},
		matching: func(in []corev1.ResourceName) []corev1.ResourceName { return Intersection(in, names) },
		usage: func(runtime.Object) (corev1.ResourceList, error) {
			out := corev1.ResourceList{}
			for _, n := range names {
				out[n] = *resource.NewQuantity(1, resource.DecimalSI)
			}
			return out, nil
		},
	}
}

// selectorMatches evaluates a scope selector against the value the
// object has for the scope (none: absent).
func selectorMatches(sel corev1.ScopedResourceSelectorRequirement, values ...string) (bool, error) {
	var op selection.Operator
	switch sel.Operator {
	case corev1.ScopeSelectorOpIn:
		op = selection.In
	case corev1.ScopeSelectorOpNotIn:
		op = selection.NotIn
	case corev1.ScopeSelectorOpExists:
		op = selection.Exists
	case corev1.ScopeSelectorOpDoesNotExist:
		op = selection.DoesNotExist
	default:
		return false, fmt.Errorf("failed to parse and convert selector: %q is not a valid scope selector operator", sel.Operator)
	}
	r, err := labels.NewRequirement(string(sel.ScopeName), op, sel.Values)
	if err != nil {
		return false, fmt.Errorf("failed to parse and convert selector: %w", err)
	}
	s := labels.NewSelector().Add(*r)
	if len(values) == 0 {
		return s.Matches(labels.Set{}), nil
	}
	for _, v := range values {
		if s.Matches(labels.Set{string(sel.ScopeName): v}) {
			return true, nil
		}
	}
	return false, nil
}
