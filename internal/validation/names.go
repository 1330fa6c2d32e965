package validation

import (
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	isDNS1123Subdomain = utilvalidation.IsDNS1123Subdomain
	isDNS1123Label     = utilvalidation.IsDNS1123Label
	isDNS1035Label     = utilvalidation.IsDNS1035Label
)

// qualifiedName reports each way value fails to be a qualified name
// ("prefix/name", as in label keys).
func qualifiedName(value string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range content.IsLabelKey(value) {
		errs = append(errs, field.Invalid(p, value, msg))
	}
	return errs
}

func dns1123Label(value string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range isDNS1123Label(value) {
		errs = append(errs, field.Invalid(p, value, msg))
	}
	return errs
}

func dns1123Subdomain(value string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range isDNS1123Subdomain(value) {
		errs = append(errs, field.Invalid(p, value, msg))
	}
	return errs
}

func validateLabelsAt(l map[string]string, p *field.Path) field.ErrorList {
	return metav1validation.ValidateLabels(l, p)
}
