package audit

import (
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

var (
	validLevels = []auditv1.Level{
		auditv1.LevelNone, auditv1.LevelMetadata, auditv1.LevelRequest, auditv1.LevelRequestResponse,
	}
	// allStages is also the order in which merged omitStages are reported.
	allStages = []auditv1.Stage{
		auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StageResponseComplete, auditv1.StagePanic,
	}
)

// validatePolicy reports every problem of p with its field path, with
// kube-apiserver's rules plus one: a policy must have rules.
func validatePolicy(p *auditv1.Policy) field.ErrorList {
	var errs field.ErrorList
	if len(p.Rules) == 0 {
		errs = append(errs, field.Required(field.NewPath("rules"), "a policy needs at least one rule"))
	}
	errs = append(errs, validateStages(p.OmitStages, field.NewPath("omitStages"))...)
	for i := range p.Rules {
		errs = append(errs, validateRule(&p.Rules[i], field.NewPath("rules").Index(i))...)
	}
	return errs
}

func validateRule(r *auditv1.PolicyRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case r.Level == "":
		errs = append(errs, field.Required(path.Child("level"), ""))
	case !slices.Contains(validLevels, r.Level):
		errs = append(errs, field.NotSupported(path.Child("level"), r.Level, validLevels))
	}
	for i, u := range r.NonResourceURLs {
		p := path.Child("nonResourceURLs").Index(i)
		if u == "*" {
			continue
		}
		if !strings.HasPrefix(u, "/") {
			errs = append(errs, field.Invalid(p, u, "non-resource URL rules must begin with a '/' character"))
		}
		if u != "" && strings.Contains(u[:len(u)-1], "*") {
			errs = append(errs, field.Invalid(p, u, "non-resource URL wildcards '*' must be the final character of the rule"))
		}
	}
	if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
		errs = append(errs, field.Invalid(path.Child("nonResourceURLs"), r.NonResourceURLs,
			"rules cannot apply to both regular resources and non-resource URLs"))
	}
	for i, gr := range r.Resources {
		p := path.Child("resources").Index(i)
		// "" is the core group; a group must not carry a version.
		if gr.Group != "" && gr.Group != "*" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(gr.Group, false) {
				errs = append(errs, field.Invalid(p.Child("group"), gr.Group, msg))
			}
		}
		if len(gr.ResourceNames) > 0 && len(gr.Resources) == 0 {
			errs = append(errs, field.Invalid(p.Child("resourceNames"), gr.ResourceNames,
				"using resourceNames requires at least one resource"))
		}
	}
	errs = append(errs, validateStages(r.OmitStages, path.Child("omitStages"))...)
	return errs
}

func validateStages(stages []auditv1.Stage, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range stages {
		if !slices.Contains(allStages, s) {
			errs = append(errs, field.NotSupported(path.Index(i), s, allStages))
		}
	}
	return errs
}
