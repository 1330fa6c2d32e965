package validation

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var supportedUnhealthyPodEvictionPolicies = []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}

// kube-apiserver checks a budget's spec only; its metadata gets the
// generic checks, and only when the spec is valid.
func validatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	return withGenericMeta(validatePodDisruptionBudgetSpec(&pdb.Spec, false), &pdb.ObjectMeta, true)
}

// A stored selector with label values no longer valid stays accepted.
func validatePodDisruptionBudgetUpdate(pdb, old *policyv1.PodDisruptionBudget) field.ErrorList {
	return validatePodDisruptionBudgetSpec(&pdb.Spec, selectorHasInvalidLabelValue(old.Spec.Selector))
}

// pdbSpec is how kube-apiserver's messages show a budget's spec: its
// internal type, with Go field names.
type pdbSpec struct {
	MinAvailable               *intstr.IntOrString
	Selector                   *metav1.LabelSelector
	MaxUnavailable             *intstr.IntOrString
	UnhealthyPodEvictionPolicy *policyv1.UnhealthyPodEvictionPolicyType
}

func validatePodDisruptionBudgetSpec(spec *policyv1.PodDisruptionBudgetSpec, invalidLabelValues bool) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		shown := pdbSpec{spec.MinAvailable, spec.Selector, spec.MaxUnavailable, spec.UnhealthyPodEvictionPolicy}
		errs = append(errs, field.Invalid(sp, shown, "minAvailable and maxUnavailable cannot be both set"))
	}
	for _, f := range []struct {
		name  string
		value *intstr.IntOrString
	}{{"minAvailable", spec.MinAvailable}, {"maxUnavailable", spec.MaxUnavailable}} {
		if f.value != nil {
			errs = append(errs, validateIntOrPercent(*f.value, sp.Child(f.name))...)
			errs = append(errs, notMoreThan100Percent(*f.value, sp.Child(f.name))...)
		}
	}
	errs = append(errs, validateLabelSelector(spec.Selector, invalidLabelValues, sp.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && !contains(supportedUnhealthyPodEvictionPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(sp.Child("unhealthyPodEvictionPolicy"), *p, supportedUnhealthyPodEvictionPolicies))
	}
	return errs
}

// validatePodDisruptionBudgetStatusUpdate checks what the disruption
// controller writes: well-formed conditions and no negative counts.
func validatePodDisruptionBudgetStatusUpdate(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	st := &pdb.Status
	p := field.NewPath("status")
	errs := metav1validation.ValidateConditions(st.Conditions, p.Child("conditions"))
	errs = append(errs, nonNegative(int64(st.DisruptionsAllowed), p.Child("disruptionsAllowed"))...)
	errs = append(errs, nonNegative(int64(st.CurrentHealthy), p.Child("currentHealthy"))...)
	errs = append(errs, nonNegative(int64(st.DesiredHealthy), p.Child("desiredHealthy"))...)
	return append(errs, nonNegative(int64(st.ExpectedPods), p.Child("expectedPods"))...)
}
