package matching

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Index finds the values (policies, bindings, webhooks) whose criteria may
// match a request without matching it against all of them. Values are
// filed by the operations, API groups and resources of their rules, and,
// when their namespace selector requires a label to have one of some
// values (matchLabels, or an In expression), by that label too. A lookup
// is then a few map reads for the request's operation, group and resource
// (each also as the wildcard "*") and for the labels of its namespace.
// What the index cannot tell (versions, scope, subresources, names,
// exclusions, the other selector requirements, the object selector) the
// full match decides. An Index is built once and then only read, so it is
// safe for concurrent lookups.
type Index[T any] struct {
	values []T
	// plain files values without a label requirement; labelled those with
	// one, by label too; unfiltered those with one, without it, for
	// requests whose namespace labels are unknown or do not apply.
	plain      map[resourceKey][]int32
	labelled   map[labelKey][]int32
	unfiltered map[resourceKey][]int32
	labelNames []string
}

type resourceKey struct{ operation, group, resource string }

type labelKey struct {
	resourceKey
	name, value string
}

// wildcard is the key of "*" and of values that may match anything.
const wildcard = "*"

// NewIndex returns an empty index.
func NewIndex[T any]() *Index[T] {
	return &Index[T]{
		plain:      map[resourceKey][]int32{},
		labelled:   map[labelKey][]int32{},
		unfiltered: map[resourceKey][]int32{},
	}
}

// Len returns the number of values added.
func (x *Index[T]) Len() int { return len(x.values) }

// Add files v by c. Lookups return values in the order they were added.
func (x *Index[T]) Add(v T, c *Criteria) {
	id := int32(len(x.values))
	x.values = append(x.values, v)
	keys := c.resourceKeys()
	name, values := c.labelRequirement()
	if name == "" {
		for _, k := range keys {
			x.plain[k] = appendOnce(x.plain[k], id)
		}
		return
	}
	if !slices.Contains(x.labelNames, name) {
		x.labelNames = append(x.labelNames, name)
	}
	for _, k := range keys {
		x.unfiltered[k] = appendOnce(x.unfiltered[k], id)
		for _, val := range values {
			lk := labelKey{k, name, val}
			x.labelled[lk] = appendOnce(x.labelled[lk], id)
		}
	}
}

// appendOnce appends id unless it is already last: values are added in
// order, so a repeat can only be the last entry.
func appendOnce(b []int32, id int32) []int32 {
	if n := len(b); n > 0 && b[n-1] == id {
		return b
	}
	return append(b, id)
}

// resourceKeys lists the keys of the criteria's rules; criteria that may
// match (or fail) any request are filed under the wildcard key.
func (c *Criteria) resourceKeys() []resourceKey {
	if c.all || c.err != nil || len(c.ruleSpecs) == 0 {
		return []resourceKey{{wildcard, wildcard, wildcard}}
	}
	var keys []resourceKey
	for i := range c.ruleSpecs {
		r := &c.ruleSpecs[i]
		for _, op := range r.Operations {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					if j := strings.IndexByte(res, '/'); j >= 0 {
						res = res[:j]
					}
					keys = append(keys, resourceKey{string(op), g, res})
				}
			}
		}
	}
	return keys
}

// labelRequirement returns a label the namespace selector requires to
// have one of values, if it has such a requirement.
func (c *Criteria) labelRequirement() (string, []string) {
	if c.all || c.err != nil || c.nsSelectorErr != nil || c.nsSelector == nil {
		return "", nil
	}
	reqs, _ := c.nsSelector.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			return r.Key(), r.ValuesUnsorted()
		}
	}
	return "", nil
}

// Lookup appends to dst the values that may match the request, in the
// order they were added, each once.
func (x *Index[T]) Lookup(dst []T, r *Request) []T {
	if len(x.values) == 0 {
		return dst
	}
	var found [16][]int32
	n := 0
	add := func(b []int32) {
		if len(b) == 0 {
			return
		}
		if n == len(found) {
			// More buckets than fit: fold them into the first.
			found[0] = append(slices.Clip(found[0]), b...)
			return
		}
		found[n] = b
		n++
	}
	a := r.Attrs
	// The request's group and resource, and under matchPolicy Equivalent
	// those of its equivalents in other groups (events.k8s.io Events for
	// core ones); versions are left to the full match.
	resources := [][2]string{{a.Resource.Group, a.Resource.Resource}}
	if a.Equivalents != nil {
		for _, e := range a.Equivalents.For(a.Resource, a.Subresource) {
			if gr := [2]string{e.Resource.Group, e.Resource.Resource}; !slices.Contains(resources, gr) {
				resources = append(resources, gr)
			}
		}
	}
	keys := make([]resourceKey, 0, 8*len(resources))
	for _, gr := range resources {
		for _, op := range [2]string{string(a.Operation), wildcard} {
			for _, g := range [2]string{gr[0], wildcard} {
				for _, res := range [2]string{gr[1], wildcard} {
					keys = append(keys, resourceKey{op, g, res})
				}
			}
		}
	}
	for _, k := range keys {
		add(x.plain[k])
	}
	if len(x.labelled) > 0 {
		if lbls, ok := r.selectorLabels(); ok {
			for _, name := range x.labelNames {
				val, has := lbls[name]
				if !has {
					continue
				}
				for _, k := range keys {
					add(x.labelled[labelKey{k, name, val}])
				}
			}
		} else {
			for _, k := range keys {
				add(x.unfiltered[k])
			}
		}
	}
	switch n {
	case 0:
		return dst
	case 1:
		for _, id := range found[0] {
			dst = append(dst, x.values[id])
		}
		return dst
	}
	total := 0
	for _, b := range found[:n] {
		total += len(b)
	}
	ids := make([]int32, 0, total)
	for _, b := range found[:n] {
		ids = append(ids, b...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		dst = append(dst, x.values[id])
	}
	return dst
}

// selectorLabels returns the labels namespace selectors are tested
// against, and false when selectors do not decide: the request is for a
// cluster-scoped object other than a namespace (selectors are ignored) or
// its namespace cannot be read (the full match reports the error).
func (r *Request) selectorLabels() (labels.Set, bool) {
	if r.Attrs.Namespace == "" && !r.isNamespaceRequest() {
		return nil, false
	}
	lbls, err := r.namespaceLabels()
	if err != nil {
		return nil, false
	}
	return lbls, true
}
