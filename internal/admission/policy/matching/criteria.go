package matching

import (
	"reflect"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// Criteria is a compiled MatchResources.
type Criteria struct {
	// all is set for a binding without matchResources.
	all bool
	// err is returned for every request: a required part is missing.
	err error

	nsSelector, objSelector       labels.Selector
	nsSelectorErr, objSelectorErr error

	rules, exclude []Rule
	// equivalent is matchPolicy Equivalent: a request also matches
	// through the other versions of its resource.
	equivalent bool
	// ruleSpecs keeps the source rules for indexing.
	ruleSpecs []admissionregistrationv1.NamedRuleWithOperations
}

// CompilePolicy compiles a policy's matchConstraints, which are required.
func CompilePolicy(mr *admissionregistrationv1.MatchResources) *Criteria {
	if mr == nil {
		return &Criteria{err: ErrNoMatchConstraints}
	}
	return compile(mr)
}

// CompileBinding compiles a binding's matchResources; without them the
// binding matches whatever its policy matches.
func CompileBinding(mr *admissionregistrationv1.MatchResources) *Criteria {
	if mr == nil {
		return &Criteria{all: true}
	}
	return compile(mr)
}

func compile(mr *admissionregistrationv1.MatchResources) *Criteria {
	switch {
	case mr.NamespaceSelector == nil:
		return &Criteria{err: ErrNilNamespaceSelector}
	case mr.ObjectSelector == nil:
		return &Criteria{err: ErrNilObjectSelector}
	}
	c := &Criteria{
		rules:     compileRules(mr.ResourceRules),
		exclude:   compileRules(mr.ExcludeResourceRules),
		ruleSpecs: mr.ResourceRules,
		// Unset is Exact here, as in kube-apiserver's matcher; API
		// defaulting sets Equivalent.
		equivalent: mr.MatchPolicy != nil && *mr.MatchPolicy == admissionregistrationv1.Equivalent,
	}
	// Selectors that do not parse fail the requests the rules match, as in
	// kube-apiserver, which parses them per request.
	c.nsSelector, c.nsSelectorErr = metav1.LabelSelectorAsSelector(mr.NamespaceSelector)
	c.objSelector, c.objSelectorErr = metav1.LabelSelectorAsSelector(mr.ObjectSelector)
	return c
}

// Matches reports whether the request matches. An error is a
// configuration error of the policy or binding; kube-apiserver reports
// namespace lookup and selector errors only for requests the rules match,
// and so does this.
func (c *Criteria) Matches(r *Request) (bool, error) {
	_, ok, err := c.MatchAs(r)
	return ok, err
}

// MatchAs is Matches, and tells as which resource and kind the request
// matched: its own, unless matchPolicy is Equivalent and only a rule for
// another version of the resource matched. Exclusions follow the same
// policy.
func (c *Criteria) MatchAs(r *Request) (Match, bool, error) {
	a := r.Attrs
	if c.all {
		return Own(a), true, nil
	}
	if c.err != nil {
		return Match{}, false, c.err
	}
	nsMatch, nsErr := c.matchNamespace(r)
	if !nsMatch && nsErr == nil {
		return Match{}, false, nil
	}
	objMatch, objErr := c.matchObject(a.Object, a.OldObject)
	if !objMatch && objErr == nil {
		return Match{}, false, nil
	}
	if _, excluded := matchRules(c.exclude, c.equivalent, a); excluded {
		return Match{}, false, nil
	}
	m := Own(a)
	if len(c.rules) > 0 {
		var ok bool
		if m, ok = matchRules(c.rules, c.equivalent, a); !ok {
			return Match{}, false, nil
		}
	}
	if nsErr != nil {
		return Match{}, false, nsErr
	}
	if objErr != nil {
		return Match{}, false, objErr
	}
	return m, true, nil
}

func (c *Criteria) matchNamespace(r *Request) (bool, error) {
	if r.Attrs.Namespace == "" && !r.isNamespaceRequest() {
		// Cluster-scoped objects other than namespaces ignore the selector.
		return true, nil
	}
	if c.nsSelectorErr != nil {
		return false, apierrors.NewInternalError(c.nsSelectorErr)
	}
	if c.nsSelector.Empty() {
		return true, nil
	}
	lbls, err := r.namespaceLabels()
	if err != nil {
		if apierrors.IsNotFound(err) {
			if status, ok := err.(apierrors.APIStatus); ok {
				return false, &apierrors.StatusError{ErrStatus: status.Status()}
			}
		}
		return false, apierrors.NewInternalError(err)
	}
	return c.nsSelector.Matches(labels.Set(lbls)), nil
}

func (c *Criteria) matchObject(obj, old runtime.Object) (bool, error) {
	if c.objSelectorErr != nil {
		return false, apierrors.NewInternalError(c.objSelectorErr)
	}
	if c.objSelector.Empty() {
		return true, nil
	}
	return objectMatches(obj, c.objSelector) || objectMatches(old, c.objSelector), nil
}

func objectMatches(obj runtime.Object, sel labels.Selector) bool {
	if IsNil(obj) {
		return false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(m.GetLabels()))
}

// IsNil reports whether obj is nil or a typed nil pointer, which the
// metadata accessors would dereference.
func IsNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
