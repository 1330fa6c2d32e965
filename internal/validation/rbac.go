package validation

import (
	rbacv1 "k8s.io/api/rbac/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RBAC names only need to be one URL path segment: kube-apiserver allows
// "system:masters" style names, which are not DNS names.

func validateRole(r *rbacv1.Role) field.ErrorList {
	errs := validateMeta(&r.ObjectMeta, true, nameIsPathSegment)
	for i := range r.Rules {
		errs = append(errs, validatePolicyRule(&r.Rules[i], true, field.NewPath("rules").Index(i))...)
	}
	return errs
}

func validateClusterRole(r *rbacv1.ClusterRole) field.ErrorList {
	errs := validateMeta(&r.ObjectMeta, false, nameIsPathSegment)
	for i := range r.Rules {
		errs = append(errs, validatePolicyRule(&r.Rules[i], false, field.NewPath("rules").Index(i))...)
	}
	// An aggregated role's rules are written by the controller; the
	// selectors are what the user owns, and they must parse.
	if r.AggregationRule != nil {
		p := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range r.AggregationRule.ClusterRoleSelectors {
			sel := &r.AggregationRule.ClusterRoleSelectors[i]
			errs = append(errs, validateLabelSelector(sel, false, p.Index(i))...)
			if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
				errs = append(errs, field.Invalid(p.Index(i), nil, "invalid label selector."))
			}
		}
	}
	return errs
}

// validatePolicyRule enforces that a rule names verbs and either resources
// (with their groups) or non-resource URLs, never both; namespaced roles
// cannot grant non-resource URLs at all.
func validatePolicyRule(rule *rbacv1.PolicyRule, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		errs = append(errs, field.Required(p.Child("verbs"), ""))
	}
	if len(rule.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	}
	if len(rule.ResourceNames) > 0 && len(rule.Resources) > 1 {
		errs = append(errs, field.Required(p.Child("resourceNames"), "resource names cannot apply to multiple resources"))
	}
	return errs
}

func validateRoleBinding(b *rbacv1.RoleBinding) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, true, nameIsPathSegment)
	errs = append(errs, validateRoleRef(&b.RoleRef, []string{"Role", "ClusterRole"})...)
	for i := range b.Subjects {
		errs = append(errs, validateSubject(&b.Subjects[i], true, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

func validateClusterRoleBinding(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	errs := validateMeta(&b.ObjectMeta, false, nameIsPathSegment)
	errs = append(errs, validateRoleRef(&b.RoleRef, []string{"ClusterRole"})...)
	for i := range b.Subjects {
		errs = append(errs, validateSubject(&b.Subjects[i], false, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

func validateRoleRef(ref *rbacv1.RoleRef, kinds []string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	if !contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range nameIsPathSegment(ref.Name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
		}
	}
	return errs
}

// validateSubject checks one binding subject. ServiceAccounts live in the
// core group and, in a cluster binding, need a namespace; users and groups
// belong to the RBAC group.
func validateSubject(s *rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range nameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind:
		if s.Name == "" {
			errs = append(errs, field.Invalid(p.Child("name"), s.Name, "user name cannot be empty"))
		}
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	case rbacv1.GroupKind:
		if s.Name == "" {
			errs = append(errs, field.Invalid(p.Child("name"), s.Name, "group name cannot be empty"))
		}
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}

func validateRoleBindingUpdate(b, old *rbacv1.RoleBinding) field.ErrorList {
	errs := validateRoleBinding(b)
	errs = append(errs, validateMetaUpdate(&b.ObjectMeta, &old.ObjectMeta)...)
	if b.RoleRef != old.RoleRef {
		errs = append(errs, roleRefChanged(b.RoleRef))
	}
	return errs
}

// internalRoleRef mirrors the reference's internal type, whose JSON form is
// what its "field is immutable" message for roleRef shows.
type internalRoleRef struct {
	APIGroup string
	Kind     string
	Name     string
}

func roleRefChanged(r rbacv1.RoleRef) *field.Error {
	return field.Invalid(field.NewPath("roleRef"), internalRoleRef(r), genericvalidation.FieldImmutableErrorMsg)
}

func validateClusterRoleBindingUpdate(b, old *rbacv1.ClusterRoleBinding) field.ErrorList {
	errs := validateClusterRoleBinding(b)
	errs = append(errs, validateMetaUpdate(&b.ObjectMeta, &old.ObjectMeta)...)
	if b.RoleRef != old.RoleRef {
		errs = append(errs, roleRefChanged(b.RoleRef))
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
