package webhook

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// SpecFor is the SubjectAccessReview spec kube-apiserver sends for the
// attributes: the user, and resourceAttributes or nonResourceAttributes.
func SpecFor(a authorizer.Attributes) authorizationv1.SubjectAccessReviewSpec {
	var s authorizationv1.SubjectAccessReviewSpec
	if u := a.GetUser(); u != nil {
		s.User = u.GetName()
		s.UID = u.GetUID()
		s.Groups = u.GetGroups()
		if extra := u.GetExtra(); extra != nil {
			s.Extra = make(map[string]authorizationv1.ExtraValue, len(extra))
			for k, v := range extra {
				s.Extra[k] = authorizationv1.ExtraValue(v)
			}
		}
	}
	if a.IsResourceRequest() {
		s.ResourceAttributes = resourceAttributesFor(a)
	} else {
		s.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.GetPath(), Verb: a.GetVerb()}
	}
	return s
}

func resourceAttributesFor(a authorizer.Attributes) *authorizationv1.ResourceAttributes {
	r := &authorizationv1.ResourceAttributes{
		Namespace:   a.GetNamespace(),
		Verb:        a.GetVerb(),
		Group:       a.GetAPIGroup(),
		Version:     a.GetAPIVersion(),
		Resource:    a.GetResource(),
		Subresource: a.GetSubresource(),
		Name:        a.GetName(),
	}
	// A selector that failed to parse contributes the requirements that did
	// parse, if any; the webhook never sees the parse error.
	if reqs := fieldRequirements(a); len(reqs) > 0 {
		r.FieldSelector = &authorizationv1.FieldSelectorAttributes{Requirements: reqs}
	}
	if reqs := labelRequirements(a); len(reqs) > 0 {
		r.LabelSelector = &authorizationv1.LabelSelectorAttributes{Requirements: reqs}
	}
	return r
}

// fieldRequirements maps field selector requirements onto the review's
// In/NotIn operators; operators with no equivalent are left out, which
// only ever widens what the webhook is asked about.
func fieldRequirements(a authorizer.Attributes) []metav1.FieldSelectorRequirement {
	reqs, _ := a.GetFieldSelector()
	if len(reqs) == 0 {
		return nil
	}
	out := make([]metav1.FieldSelectorRequirement, 0, len(reqs))
	for _, r := range reqs {
		var op metav1.FieldSelectorOperator
		switch r.Operator {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = metav1.FieldSelectorOpIn
		case selection.NotEquals, selection.NotIn:
			op = metav1.FieldSelectorOpNotIn
		default:
			continue
		}
		out = append(out, metav1.FieldSelectorRequirement{Key: r.Field, Operator: op, Values: []string{r.Value}})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func labelRequirements(a authorizer.Attributes) []metav1.LabelSelectorRequirement {
	reqs, _ := a.GetLabelSelector()
	if len(reqs) == 0 {
		return nil
	}
	out := make([]metav1.LabelSelectorRequirement, 0, len(reqs))
	for _, r := range reqs {
		var op metav1.LabelSelectorOperator
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = metav1.LabelSelectorOpIn
		case selection.NotEquals, selection.NotIn:
			op = metav1.LabelSelectorOpNotIn
		case selection.Exists:
			op = metav1.LabelSelectorOpExists
		case selection.DoesNotExist:
			op = metav1.LabelSelectorOpDoesNotExist
		default:
			continue
		}
		req := metav1.LabelSelectorRequirement{Key: r.Key(), Operator: op}
		if v := r.ValuesUnsorted(); len(v) > 0 {
			req.Values = v
		}
		out = append(out, req)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// v1beta1Spec is the same spec in authorization.k8s.io/v1beta1, whose
// only difference on the wire is the "group" key for groups.
func v1beta1Spec(in *authorizationv1.SubjectAccessReviewSpec) authorizationv1beta1.SubjectAccessReviewSpec {
	out := authorizationv1beta1.SubjectAccessReviewSpec{
		User:   in.User,
		Groups: in.Groups,
		UID:    in.UID,
	}
	if in.Extra != nil {
		out.Extra = make(map[string]authorizationv1beta1.ExtraValue, len(in.Extra))
		for k, v := range in.Extra {
			out.Extra[k] = authorizationv1beta1.ExtraValue(v)
		}
	}
	if r := in.ResourceAttributes; r != nil {
		out.ResourceAttributes = &authorizationv1beta1.ResourceAttributes{
			Namespace:     r.Namespace,
			Verb:          r.Verb,
			Group:         r.Group,
			Version:       r.Version,
			Resource:      r.Resource,
			Subresource:   r.Subresource,
			Name:          r.Name,
			FieldSelector: r.FieldSelector,
			LabelSelector: r.LabelSelector,
		}
	}
	if n := in.NonResourceAttributes; n != nil {
		out.NonResourceAttributes = &authorizationv1beta1.NonResourceAttributes{Path: n.Path, Verb: n.Verb}
	}
	return out
}
