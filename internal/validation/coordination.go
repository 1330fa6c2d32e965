package validation

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var supportedLeaseStrategies = []string{string(coordinationv1.OldestEmulationVersion)}

func validateLease(l *coordinationv1.Lease) field.ErrorList {
	errs := validateMeta(&l.ObjectMeta, true, nameIsDNSSubdomain)
	sp := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(sp.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(sp.Child("leaseTransitions"), t, "must be greater than or equal to 0"))
	}
	if s := l.Spec.Strategy; s != nil {
		// A strategy without a domain must be one Kubernetes defines.
		if !strings.Contains(string(*s), "/") {
			if !contains(supportedLeaseStrategies, string(*s)) {
				errs = append(errs, field.NotSupported(sp.Child("strategy"), *s, supportedLeaseStrategies))
			}
		} else {
			errs = append(errs, qualifiedName(string(*s), sp.Child("strategy"))...)
		}
	}
	if h := l.Spec.PreferredHolder; h != nil && *h != "" && (l.Spec.Strategy == nil || *l.Spec.Strategy == "") {
		errs = append(errs, field.Forbidden(sp.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}
