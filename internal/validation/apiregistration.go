package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation/path"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

var apiServiceConditionStatuses = []string{string(apiregistrationv1.ConditionTrue), string(apiregistrationv1.ConditionFalse), string(apiregistrationv1.ConditionUnknown)}

func validateAPIService(s *apiregistrationv1.APIService) field.ErrorList {
	// The name is the group version it registers.
	required := s.Spec.Version + "." + s.Spec.Group
	errs := validateMeta(&s.ObjectMeta, false, func(name string, _ bool) []string {
		if msgs := path.IsValidPathSegmentName(name); len(msgs) > 0 {
			return msgs
		}
		if name != required {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", required)}
		}
		return nil
	})
	sp := field.NewPath("spec")
	if s.Spec.Group == "" && s.Spec.Version != "v1" {
		errs = append(errs, field.Required(sp.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if s.Spec.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(s.Spec.Group) {
			errs = append(errs, field.Invalid(sp.Child("group"), s.Spec.Group, msg))
		}
	}
	for _, msg := range utilvalidation.IsDNS1035Label(s.Spec.Version) {
		errs = append(errs, field.Invalid(sp.Child("version"), s.Spec.Version, msg))
	}
	if p := s.Spec.GroupPriorityMinimum; p <= 0 || p > 20000 {
		errs = append(errs, field.Invalid(sp.Child("groupPriorityMinimum"), p, "must be positive and less than 20000"))
	}
	if p := s.Spec.VersionPriority; p <= 0 || p > 1000 {
		errs = append(errs, field.Invalid(sp.Child("versionPriority"), p, "must be positive and less than 1000"))
	}
	svc := s.Spec.Service
	if svc == nil {
		if n := len(s.Spec.CABundle); n != 0 {
			errs = append(errs, field.Invalid(sp.Child("caBundle"), fmt.Sprintf("%d bytes", n), "local APIServices may not have a caBundle"))
		}
		if s.Spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(sp.Child("insecureSkipTLSVerify"), true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return append(errs, validateAPIServiceStatus(&s.Status)...)
	}
	if svc.Namespace == "" {
		errs = append(errs, field.Required(sp.Child("service", "namespace"), ""))
	}
	if svc.Name == "" {
		errs = append(errs, field.Required(sp.Child("service", "name"), ""))
	}
	var port int32
	if svc.Port != nil {
		port = *svc.Port
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(sp.Child("service", "port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if s.Spec.InsecureSkipTLSVerify && len(s.Spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(sp.Child("insecureSkipTLSVerify"), true, "may not be true if caBundle is present"))
	}
	return append(errs, validateAPIServiceStatus(&s.Status)...)
}

func validateAPIServiceStatus(s *apiregistrationv1.APIServiceStatus) field.ErrorList {
	var errs field.ErrorList
	for i, c := range s.Conditions {
		switch c.Status {
		case apiregistrationv1.ConditionTrue, apiregistrationv1.ConditionFalse, apiregistrationv1.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("status", "conditions").Index(i).Child("status"), c.Status, apiServiceConditionStatuses))
		}
	}
	return errs
}
