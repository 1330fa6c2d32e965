package reviews

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// withSelectors adds the label and field selectors of an access review's
// resource attributes to a, as kube-apiserver reads them: a raw selector
// is parsed, requirements (which win over it) are converted one by one,
// the ones that cannot be kept dropped with an error beside the others (a
// broader check, as requirements are ANDed).
func withSelectors(a *authorizer.AttributesRecord, ra *authorizationv1.ResourceAttributes) {
	if ls := ra.LabelSelector; ls != nil {
		if ls.RawSelector != "" {
			if sel, err := labels.Parse(ls.RawSelector); err != nil {
				a.LabelSelectorRequirements, a.LabelSelectorParsingErr = nil, err
			} else {
				a.LabelSelectorRequirements, _ = sel.Requirements()
				a.LabelSelectorParsingErr = nil
			}
		}
		if len(ls.Requirements) > 0 {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = labelRequirements(ls.Requirements)
		}
	}
	if fs := ra.FieldSelector; fs != nil {
		if fs.RawSelector != "" {
			if sel, err := fields.ParseSelector(fs.RawSelector); err != nil {
				a.FieldSelectorRequirements, a.FieldSelectorParsingErr = nil, err
			} else {
				a.FieldSelectorRequirements, a.FieldSelectorParsingErr = sel.Requirements(), nil
			}
		}
		if len(fs.Requirements) > 0 {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = fieldRequirements(fs.Requirements)
		}
	}
}

var labelOps = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var (
		reqs labels.Requirements
		errs []error
	)
	for _, r := range in {
		op, ok := labelOps[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, *req)
	}
	return reqs, utilerrors.NewAggregate(errs)
}

func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var (
		reqs fields.Requirements
		errs []error
	)
	for _, r := range in {
		if len(r.Values) > 1 {
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support multiple values"))
			continue
		}
		switch r.Operator {
		case metav1.FieldSelectorOpIn:
			if len(r.Values) != 1 {
				errs = append(errs, fmt.Errorf("fieldSelectors in must have one value"))
				continue
			}
			// As a parsed selector would have it: In one value is Equals.
			reqs = append(reqs, fields.Requirement{Field: r.Key, Operator: selection.Equals, Value: r.Values[0]})
		case metav1.FieldSelectorOpNotIn:
			if len(r.Values) != 1 {
				errs = append(errs, fmt.Errorf("fieldSelectors not in must have one value"))
				continue
			}
			reqs = append(reqs, fields.Requirement{Field: r.Key, Operator: selection.NotEquals, Value: r.Values[0]})
		case metav1.FieldSelectorOpExists, metav1.FieldSelectorOpDoesNotExist:
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support %v", r.Operator))
		default:
			errs = append(errs, fmt.Errorf("%q is not a valid field selector operator", r.Operator))
		}
	}
	return reqs, utilerrors.NewAggregate(errs)
}
