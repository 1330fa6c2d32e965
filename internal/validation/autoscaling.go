package validation

import (
	"errors"
	"fmt"
	"slices"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/registry"
)

// The bounds of an autoscaler's scaling rules.
const (
	maxScalingPeriodSeconds       = 1800
	maxStabilizationWindowSeconds = 3600
)

// refOptions loosen the check of a CrossVersionObjectReference's apiVersion.
type refOptions struct {
	allowEmptyGroup      bool
	allowInvalidVersion  bool
	grouplessKindAllowed bool
}

// hpaOptions are the per-request loosenings kube-apiserver grants an
// update: a reference that was already there is not re-checked.
type hpaOptions struct {
	target, object refOptions
}

func hpaOptionsFor(hpa, old *autoscalingv2.HorizontalPodAutoscaler) hpaOptions {
	opts := hpaOptions{object: refOptions{allowEmptyGroup: true}}
	ref := hpa.Spec.ScaleTargetRef
	switch {
	case old != nil && old.Spec.ScaleTargetRef.APIVersion == ref.APIVersion && old.Spec.ScaleTargetRef.Kind == ref.Kind:
		opts.target.allowInvalidVersion = true
	case ref.Kind == "ReplicationController":
		// The one scalable kind of the core group.
		opts.target.allowEmptyGroup = true
	}
	if old != nil {
		for _, m := range old.Spec.Metrics {
			if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && apiVersionProblem(m.Object.DescribedObject, opts.object) != nil {
				opts.object.allowInvalidVersion = true
				break
			}
		}
	}
	return opts
}

func validateHPA(hpa *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	errs := validateMeta(&hpa.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validateHPASpec(&hpa.Spec, field.NewPath("spec"), hpaOptionsFor(hpa, nil))...)
}

func validateHPAUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	errs := validateMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateHPASpec(&hpa.Spec, field.NewPath("spec"), hpaOptionsFor(hpa, old))...)
}

func validateHPAStatusUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	errs := validateMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta)
	sp := field.NewPath("status")
	for i, c := range hpa.Status.Conditions {
		if c.ObservedGeneration != nil {
			errs = append(errs, nonNegative(*c.ObservedGeneration, sp.Child("conditions").Index(i).Child("observedGeneration"))...)
		}
	}
	errs = append(errs, nonNegative(int64(hpa.Status.CurrentReplicas), sp.Child("currentReplicas"))...)
	return append(errs, nonNegative(int64(hpa.Status.DesiredReplicas), sp.Child("desiredReplicas"))...)
}

// An autoscaling/v1 autoscaler is validated as the v2 object it is stored
// as, with v2's field paths, as kube-apiserver validates its internal form.
func hpaV2(obj *autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, *field.Error) {
	out, err := registry.HPAToV2(obj)
	if err != nil {
		return nil, field.InternalError(field.NewPath(""), err)
	}
	return out.(*autoscalingv2.HorizontalPodAutoscaler), nil
}

func validateHPAV1(obj *autoscalingv1.HorizontalPodAutoscaler) field.ErrorList {
	hpa, ferr := hpaV2(obj)
	if ferr != nil {
		return field.ErrorList{ferr}
	}
	return validateHPA(hpa)
}

func hpaV1Pair(obj, old *autoscalingv1.HorizontalPodAutoscaler, validate func(a, b *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList) field.ErrorList {
	hpa, ferr := hpaV2(obj)
	if ferr != nil {
		return field.ErrorList{ferr}
	}
	prev, ferr := hpaV2(old)
	if ferr != nil {
		return field.ErrorList{ferr}
	}
	return validate(hpa, prev)
}

func validateHPASpec(s *autoscalingv2.HorizontalPodAutoscalerSpec, p *field.Path, opts hpaOptions) field.ErrorList {
	var errs, declarative field.ErrorList
	// The replica bounds are kube-apiserver's declarative rules: their
	// errors come after the others, and a missing maximum is reported
	// without detail. Scaling to zero is allowed (HPAScaleToZero is on by
	// default).
	if s.MinReplicas != nil && *s.MinReplicas < 0 {
		declarative = append(declarative, field.Invalid(p.Child("minReplicas"), *s.MinReplicas, "must be greater than or equal to 0"))
	}
	switch {
	case s.MaxReplicas == 0:
		declarative = append(declarative, field.Required(p.Child("maxReplicas"), ""))
	case s.MaxReplicas < 0:
		declarative = append(declarative, field.Invalid(p.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to 1"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateCrossVersionRef(s.ScaleTargetRef, p.Child("scaleTargetRef"), opts.target)...)
	errs = append(errs, validateHPAMetrics(s.Metrics, p.Child("metrics"), s.MinReplicas, opts.object)...)
	if b := s.Behavior; b != nil {
		bp := p.Child("behavior")
		errs = append(errs, validateScalingRules(b.ScaleUp, bp.Child("scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, bp.Child("scaleDown"))...)
	}
	return append(errs, declarative...)
}

func validateCrossVersionRef(ref autoscalingv2.CrossVersionObjectReference, p *field.Path, opts refOptions) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, field.Required(p.Child(f.name), ""))
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.value, msg))
		}
	}
	if err := apiVersionProblem(ref, opts); err != nil {
		errs = append(errs, field.Invalid(p.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	return errs
}

func apiVersionProblem(ref autoscalingv2.CrossVersionObjectReference, opts refOptions) error {
	if opts.allowInvalidVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return err
	}
	if !opts.allowEmptyGroup && gv.Group == "" {
		return errors.New("apiVersion must specify API group")
	}
	return nil
}

func validateHPAMetrics(metrics []autoscalingv2.MetricSpec, p *field.Path, minReplicas *int32, opts refOptions) field.ErrorList {
	var errs field.ErrorList
	external := false
	for i, m := range metrics {
		errs = append(errs, validateMetricSpec(m, p.Index(i), opts)...)
		external = external || m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
	}
	if minReplicas != nil && *minReplicas == 0 && !external {
		errs = append(errs, field.Forbidden(p, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

func validateScalingRules(r *autoscalingv2.HPAScalingRules, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil {
		if *w < 0 {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
		}
		if *w > maxStabilizationWindowSeconds {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, fmt.Sprintf("must be less than or equal to %d", maxStabilizationWindowSeconds)))
		}
	}
	if sp := r.SelectPolicy; sp != nil && !supported(supportedSelectPolicies, string(*sp)) {
		errs = append(errs, field.NotSupported(p.Child("selectPolicy"), *sp, supportedSelectPolicies))
	}
	pp := p.Child("policies")
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(pp, "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		ip := pp.Index(i)
		if !supported(supportedScalingPolicies, string(pol.Type)) {
			errs = append(errs, field.NotSupported(ip.Child("type"), pol.Type, supportedScalingPolicies))
		}
		if pol.Value <= 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(ip.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
		}
		if pol.PeriodSeconds > maxScalingPeriodSeconds {
			errs = append(errs, field.Invalid(ip.Child("periodSeconds"), pol.PeriodSeconds, fmt.Sprintf("must be less than or equal to %d", maxScalingPeriodSeconds)))
		}
	}
	if t := r.Tolerance; t != nil {
		errs = append(errs, nonNegativeQuantity(*t, p.Child("tolerance"))...)
	}
	return errs
}

func validateMetricSpec(m autoscalingv2.MetricSpec, p *field.Path, opts refOptions) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric source type"))
	}
	if !supported(supportedMetricSources, string(m.Type)) {
		errs = append(errs, field.NotSupported(p.Child("type"), m.Type, supportedMetricSources))
	}
	// Only the first source set is checked; the others are refused below.
	var present []string
	check := func(name string, set bool, validate func() field.ErrorList) {
		if !set {
			return
		}
		present = append(present, name)
		if len(present) == 1 {
			errs = append(errs, validate()...)
		}
	}
	check("object", m.Object != nil, func() field.ErrorList { return validateObjectMetric(m.Object, p.Child("object"), opts) })
	check("external", m.External != nil, func() field.ErrorList { return validateExternalMetric(m.External, p.Child("external")) })
	check("pods", m.Pods != nil, func() field.ErrorList { return validatePodsMetric(m.Pods, p.Child("pods")) })
	check("resource", m.Resource != nil, func() field.ErrorList { return validateResourceMetric(m.Resource, p.Child("resource")) })
	check("containerResource", m.ContainerResource != nil, func() field.ErrorList {
		return validateContainerResourceMetric(m.ContainerResource, p.Child("containerResource"))
	})

	expected, set := "", false
	switch m.Type {
	case autoscalingv2.ObjectMetricSourceType:
		expected, set = "object", m.Object != nil
	case autoscalingv2.PodsMetricSourceType:
		expected, set = "pods", m.Pods != nil
	case autoscalingv2.ResourceMetricSourceType:
		expected, set = "resource", m.Resource != nil
	case autoscalingv2.ExternalMetricSourceType:
		expected, set = "external", m.External != nil
	case autoscalingv2.ContainerResourceMetricSourceType:
		expected, set = "containerResource", m.ContainerResource != nil
	default:
		// Already reported as not supported above.
		set = true
	}
	if !set {
		errs = append(errs, field.Required(p.Child(expected), "must populate information for the given metric source"))
	}
	if len(present) != 1 {
		// kube-apiserver reports the extra sources in the order of a set's
		// iteration; sorted here, which agrees whenever there is one.
		slices.Sort(present)
		for _, name := range present {
			if name != expected {
				errs = append(errs, field.Forbidden(p.Child(name), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

func validateObjectMetric(src *autoscalingv2.ObjectMetricSource, p *field.Path, opts refOptions) field.ErrorList {
	errs := validateCrossVersionRef(src.DescribedObject, p.Child("describedObject"), opts)
	errs = append(errs, validateMetricIdentifier(src.Metric, p.Child("metric"))...)
	errs = append(errs, validateMetricTarget(src.Target, p.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

func validateExternalMetric(src *autoscalingv2.ExternalMetricSource, p *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(src.Metric, p.Child("metric"))
	errs = append(errs, validateMetricTarget(src.Target, p.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		errs = append(errs, field.Forbidden(p.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
	}
	return errs
}

func validatePodsMetric(src *autoscalingv2.PodsMetricSource, p *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(src.Metric, p.Child("metric"))
	errs = append(errs, validateMetricTarget(src.Target, p.Child("target"))...)
	if src.Target.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return errs
}

func validateResourceMetric(src *autoscalingv2.ResourceMetricSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if src.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "must specify a resource name"))
	}
	return append(errs, validateResourceTarget(src.Target, p.Child("target"))...)
}

func validateContainerResourceMetric(src *autoscalingv2.ContainerResourceMetricSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if src.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "must specify a resource name"))
	} else {
		errs = append(errs, validateContainerResourceName(src.Name, p.Child("name"))...)
	}
	if src.Container == "" {
		errs = append(errs, field.Required(p.Child("container"), "must specify a container"))
	} else {
		errs = append(errs, dns1123Label(src.Container, p.Child("container"))...)
	}
	return append(errs, validateResourceTarget(src.Target, p.Child("target"))...)
}

func validateResourceTarget(t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	errs := validateMetricTarget(t, p)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(p.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateMetricTarget(t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Type == "" {
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	}
	switch t.Type {
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		errs = append(errs, field.Invalid(p.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("value"), t.Value, "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("averageValue"), t.AverageValue, "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, p *field.Path) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(p.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(id.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), id.Name, msg))
	}
	return errs
}

// hpaStatusUpdate dispatches the status update of either version.
func hpaStatusUpdate(obj, old runtime.Object) (field.ErrorList, bool) {
	switch o := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		return validateHPAStatusUpdate(o, old.(*autoscalingv2.HorizontalPodAutoscaler)), true
	case *autoscalingv1.HorizontalPodAutoscaler:
		return hpaV1Pair(o, old.(*autoscalingv1.HorizontalPodAutoscaler), validateHPAStatusUpdate), true
	}
	return nil, false
}
