package validation

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validatePodTemplateObject(t *corev1.PodTemplate) field.ErrorList {
	errs := validateMeta(&t.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validatePodTemplate(&t.Template, field.NewPath("template"))...)
}

func validatePodTemplateObjectUpdate(t, old *corev1.PodTemplate) field.ErrorList {
	errs := validateMetaUpdate(&t.ObjectMeta, &old.ObjectMeta)
	return append(errs, validatePodTemplate(&t.Template, field.NewPath("template"))...)
}

func validateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	errs := validateMeta(&rc.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validateReplicationControllerSpec(&rc.Spec, field.NewPath("spec"))...)
}

func validateReplicationControllerSpec(s *corev1.ReplicationControllerSpec, p *field.Path) field.ErrorList {
	errs := nonNegative(int64(s.MinReadySeconds), p.Child("minReadySeconds"))
	if len(s.Selector) == 0 {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	}
	errs = append(errs, metav1validation.ValidateLabels(s.Selector, p.Child("selector"))...)
	errs = append(errs, nonNegative(int64(replicasOf(s.Replicas)), p.Child("replicas"))...)
	tp := p.Child("template")
	if s.Template == nil {
		return append(errs, field.Required(tp, ""))
	}
	if sel := labels.Set(s.Selector).AsSelectorPreValidated(); !sel.Empty() && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, validatePodTemplate(s.Template, tp)...)
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), s.Template.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if s.Template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(tp.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

func validateReplicationControllerUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	errs := validateMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateReplicationControllerSpec(&rc.Spec, field.NewPath("spec"))...)
}

func validateReplicationControllerStatusUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	errs := validateMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta)
	p := field.NewPath("status")
	st := rc.Status
	errs = append(errs, nonNegative(int64(st.Replicas), p.Child("replicas"))...)
	errs = append(errs, nonNegative(int64(st.FullyLabeledReplicas), p.Child("fullyLabeledReplicas"))...)
	errs = append(errs, nonNegative(int64(st.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, nonNegative(int64(st.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, nonNegative(st.ObservedGeneration, p.Child("observedGeneration"))...)
	msg := "cannot be greater than status.replicas"
	if st.FullyLabeledReplicas > st.Replicas {
		errs = append(errs, field.Invalid(p.Child("fullyLabeledReplicas"), st.FullyLabeledReplicas, msg))
	}
	if st.ReadyReplicas > st.Replicas {
		errs = append(errs, field.Invalid(p.Child("readyReplicas"), st.ReadyReplicas, msg))
	}
	if st.AvailableReplicas > st.Replicas {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), st.AvailableReplicas, msg))
	}
	if st.AvailableReplicas > st.ReadyReplicas {
		errs = append(errs, field.Invalid(p.Child("availableReplicas"), st.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return errs
}

func validateControllerRevision(cr *appsv1.ControllerRevision) field.ErrorList {
	errs := validateControllerRevisionMeta(cr)
	dp := field.NewPath("data")
	var v any
	switch {
	case cr.Data.Raw == nil:
		errs = append(errs, field.Required(dp, "data is mandatory"))
	case json.Unmarshal(cr.Data.Raw, &v) != nil:
		err := json.Unmarshal(cr.Data.Raw, &v)
		errs = append(errs, field.Invalid(dp, "<value omitted>", "error parsing data: "+err.Error()))
	case v == nil:
		errs = append(errs, field.Required(dp, "data is mandatory"))
	default:
		if _, ok := v.(map[string]any); !ok {
			errs = append(errs, field.Required(dp, "data must be a valid JSON object"))
		}
	}
	return errs
}

func validateControllerRevisionMeta(cr *appsv1.ControllerRevision) field.ErrorList {
	errs := validateMeta(&cr.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, nonNegative(cr.Revision, field.NewPath("revision"))...)
}

func validateControllerRevisionUpdate(cr, old *appsv1.ControllerRevision) field.ErrorList {
	errs := validateMetaUpdate(&cr.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateControllerRevisionMeta(cr)...)
	return append(errs, immutable(cr.Data, old.Data, field.NewPath("data"))...)
}
