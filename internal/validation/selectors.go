package validation

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateLabelSelector checks selector syntax. allowInvalidValue keeps the
// leniency kube-apiserver grants to objects stored before label values in
// selectors were checked.
func validateLabelSelector(sel *metav1.LabelSelector, allowInvalidValue bool, p *field.Path) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidValue}
	return metav1validation.ValidateLabelSelector(sel, opts, p)
}

// selectorHasInvalidLabelValue reports whether a stored selector would fail
// the strict label value check, so that updates keep accepting it.
func selectorHasInvalidLabelValue(sel *metav1.LabelSelector) bool {
	return sel != nil && len(validateLabelSelector(sel, false, nil)) > 0
}
