package registry

import (
	"encoding/json"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// autoscaling/v1 HorizontalPodAutoscalers are autoscaling/v2 ones seen
// through the older API, which knows only a CPU utilization target. What
// v1 cannot express travels in annotations, as kube-apiserver keeps it, so
// a v1 client's read-modify-write does not lose v2 fields.
const (
	hpaMetricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	hpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	hpaConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	hpaBehaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
)

// hpaRoundTripAnnotations are dropped from both versions: they are made
// anew on every conversion to v1 and consumed by every conversion from it.
var hpaRoundTripAnnotations = []string{
	hpaMetricsAnnotation, hpaCurrentMetricsAnnotation, hpaConditionsAnnotation, hpaBehaviorAnnotation,
	"autoscaling.alpha.kubernetes.io/scale-down-tolerance", "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
}

// DefaultCPUUtilization is the target of an autoscaler that names no metric.
const DefaultCPUUtilization int32 = 80

// withoutRoundTrip returns a copy of annotations without the round-trip
// ones, or annotations itself when it has none.
func withoutRoundTrip(annotations map[string]string) map[string]string {
	found := false
	for _, k := range hpaRoundTripAnnotations {
		if _, ok := annotations[k]; ok {
			found = true
		}
	}
	if !found {
		return annotations
	}
	out := make(map[string]string, len(annotations))
	for k, v := range annotations {
		out[k] = v
	}
	for _, k := range hpaRoundTripAnnotations {
		delete(out, k)
	}
	return out
}

// The behavior annotation holds kube-apiserver's internal form, whose JSON
// keys are the Go field names.
type behaviorAnnotation struct {
	ScaleUp   *scalingRulesAnnotation
	ScaleDown *scalingRulesAnnotation
}

type scalingRulesAnnotation struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *autoscalingv2.ScalingPolicySelect
	Policies                   []scalingPolicyAnnotation
	Tolerance                  *resource.Quantity
}

type scalingPolicyAnnotation struct {
	Type          autoscalingv2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func rulesToAnnotation(r *autoscalingv2.HPAScalingRules) *scalingRulesAnnotation {
	if r == nil {
		return nil
	}
	out := &scalingRulesAnnotation{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
	if r.Policies != nil {
		out.Policies = make([]scalingPolicyAnnotation, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = scalingPolicyAnnotation{Type: p.Type, Value: p.Value, PeriodSeconds: p.PeriodSeconds}
		}
	}
	return out
}

func rulesFromAnnotation(r *scalingRulesAnnotation) *autoscalingv2.HPAScalingRules {
	if r == nil {
		return nil
	}
	out := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
	if r.Policies != nil {
		out.Policies = make([]autoscalingv2.HPAScalingPolicy, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = autoscalingv2.HPAScalingPolicy{Type: p.Type, Value: p.Value, PeriodSeconds: p.PeriodSeconds}
		}
	}
	return out
}

// isCPUUtilization reports the metric v1 spells targetCPUUtilizationPercentage.
func isCPUUtilization(m autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil &&
		m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
}

// HPAToV2 converts an autoscaling/v1 HorizontalPodAutoscaler to v2.
func HPAToV2(obj runtime.Object) (runtime.Object, error) {
	in, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	if !ok {
		return nil, fmt.Errorf("%T is not an autoscaling/v1 HorizontalPodAutoscaler", obj)
	}
	in = in.DeepCopy()
	out := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: in.ObjectMeta}
	out.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var cpu []autoscalingv2.MetricSpec
	if p := in.Spec.TargetCPUUtilizationPercentage; p != nil {
		cpu = []autoscalingv2.MetricSpec{cpuUtilization(*p)}
	}
	out.Spec.Metrics = cpu
	a := in.Annotations
	if enc, ok := a[hpaMetricsAnnotation]; ok {
		var others []autoscalingv1.MetricSpec
		if json.Unmarshal([]byte(enc), &others) == nil {
			metrics := make([]autoscalingv2.MetricSpec, 0, len(others)+len(cpu))
			for _, m := range others {
				metrics = append(metrics, metricSpecToV2(m))
			}
			out.Spec.Metrics = append(metrics, cpu...)
		}
	}
	if enc, ok := a[hpaBehaviorAnnotation]; ok {
		var b behaviorAnnotation
		if json.Unmarshal([]byte(enc), &b) == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rulesFromAnnotation(b.ScaleUp), ScaleDown: rulesFromAnnotation(b.ScaleDown)}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	}

	s := in.Status
	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: s.ObservedGeneration, LastScaleTime: s.LastScaleTime,
		CurrentReplicas: s.CurrentReplicas, DesiredReplicas: s.DesiredReplicas,
	}
	if p := s.CurrentCPUUtilizationPercentage; p != nil {
		u := *p
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &u}}}}
	}
	if enc, ok := a[hpaCurrentMetricsAnnotation]; ok {
		var current []autoscalingv1.MetricStatus
		if json.Unmarshal([]byte(enc), &current) == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(current))
			for i, m := range current {
				out.Status.CurrentMetrics[i] = metricStatusToV2(m)
			}
		}
	}
	if enc, ok := a[hpaConditionsAnnotation]; ok {
		var conds []autoscalingv1.HorizontalPodAutoscalerCondition
		if json.Unmarshal([]byte(enc), &conds) == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conds))
			for i, c := range conds {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{
					Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
					LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration,
				}
			}
		}
	}
	out.Annotations = withoutRoundTrip(out.Annotations)
	return out, nil
}

func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent}}}
}

// HPAFromV2 converts an autoscaling/v2 HorizontalPodAutoscaler to v1.
func HPAFromV2(obj runtime.Object) (runtime.Object, error) {
	in, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok {
		return nil, fmt.Errorf("%T is not an autoscaling/v2 HorizontalPodAutoscaler", obj)
	}
	in = in.DeepCopy()
	out := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: in.ObjectMeta}
	annotations := withoutRoundTrip(in.Annotations)
	set := func(key string, v any) error {
		enc, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[key] = string(enc)
		return nil
	}
	out.Spec = autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var others []autoscalingv1.MetricSpec
	for _, m := range in.Spec.Metrics {
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				u := *m.Resource.Target.AverageUtilization
				out.Spec.TargetCPUUtilizationPercentage = &u
			}
			continue
		}
		others = append(others, metricSpecFromV2(m))
	}
	s := in.Status
	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{
		ObservedGeneration: s.ObservedGeneration, LastScaleTime: s.LastScaleTime,
		CurrentReplicas: s.CurrentReplicas, DesiredReplicas: s.DesiredReplicas,
	}
	current := make([]autoscalingv1.MetricStatus, len(s.CurrentMetrics))
	for i, m := range s.CurrentMetrics {
		current[i] = metricStatusFromV2(m)
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			u := *m.Resource.Current.AverageUtilization
			out.Status.CurrentCPUUtilizationPercentage = &u
		}
	}
	if len(others) > 0 {
		if err := set(hpaMetricsAnnotation, others); err != nil {
			return nil, err
		}
	}
	if len(current) > 0 {
		if err := set(hpaCurrentMetricsAnnotation, current); err != nil {
			return nil, err
		}
	}
	if b := in.Spec.Behavior; b != nil {
		if err := set(hpaBehaviorAnnotation, behaviorAnnotation{ScaleUp: rulesToAnnotation(b.ScaleUp), ScaleDown: rulesToAnnotation(b.ScaleDown)}); err != nil {
			return nil, err
		}
	}
	if len(s.Conditions) > 0 {
		conds := make([]autoscalingv1.HorizontalPodAutoscalerCondition, len(s.Conditions))
		for i, c := range s.Conditions {
			conds[i] = autoscalingv1.HorizontalPodAutoscalerCondition{
				Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
				LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration,
			}
		}
		if err := set(hpaConditionsAnnotation, conds); err != nil {
			return nil, err
		}
	}
	out.Annotations = annotations
	return out, nil
}

func metricSpecToV2(in autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		src := &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(o.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
			Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, AverageValue: o.AverageValue},
		}
		v := o.TargetValue
		switch {
		case o.AverageValue == nil:
			src.Target.Value = &v
		case !v.IsZero():
			// v1 always serializes a value; a zero one beside an average is no target.
			src.Target.Type, src.Target.Value = autoscalingv2.AverageValueMetricType, &v
		default:
			src.Target.Type = autoscalingv2.AverageValueMetricType
		}
		out.Object = src
	}
	if p := in.Pods; p != nil {
		v := p.TargetAverageValue
		out.Pods = &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &v},
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: r.Name, Target: resourceTarget(r.TargetAverageUtilization, r.TargetAverageValue)}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: c.Name, Container: c.Container,
			Target: resourceTarget(c.TargetAverageUtilization, c.TargetAverageValue)}
	}
	if e := in.External; e != nil {
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, Value: e.TargetValue, AverageValue: e.TargetAverageValue}
		if e.TargetValue != nil {
			t.Type = autoscalingv2.ValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector}, Target: t}
	}
	return out
}

func resourceTarget(utilization *int32, average *resource.Quantity) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: average, AverageUtilization: utilization}
	if utilization != nil {
		t.Type = autoscalingv2.UtilizationMetricType
	}
	return t
}

func metricSpecFromV2(in autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		src := &autoscalingv1.ObjectMetricSource{
			Target:     autoscalingv1.CrossVersionObjectReference(o.DescribedObject),
			MetricName: o.Metric.Name, Selector: o.Metric.Selector, AverageValue: o.Target.AverageValue,
		}
		if o.Target.Value != nil {
			src.TargetValue = *o.Target.Value
		}
		out.Object = src
	}
	if p := in.Pods; p != nil {
		src := &autoscalingv1.PodsMetricSource{MetricName: p.Metric.Name, Selector: p.Metric.Selector}
		if p.Target.AverageValue != nil {
			src.TargetAverageValue = *p.Target.AverageValue
		}
		out.Pods = src
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv1.ResourceMetricSource{Name: r.Name, TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{Name: c.Name, Container: c.Container,
			TargetAverageUtilization: c.Target.AverageUtilization, TargetAverageValue: c.Target.AverageValue}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv1.ExternalMetricSource{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector,
			TargetValue: e.Target.Value, TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

func metricStatusToV2(in autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		v := o.CurrentValue
		out.Object = &autoscalingv2.ObjectMetricStatus{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(o.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
			Current:         autoscalingv2.MetricValueStatus{Value: &v, AverageValue: o.AverageValue},
		}
	}
	if p := in.Pods; p != nil {
		v := p.CurrentAverageValue
		out.Pods = &autoscalingv2.PodsMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
			Current: autoscalingv2.MetricValueStatus{AverageValue: &v}}
	}
	if r := in.Resource; r != nil {
		v := r.CurrentAverageValue
		out.Resource = &autoscalingv2.ResourceMetricStatus{Name: r.Name,
			Current: autoscalingv2.MetricValueStatus{AverageValue: &v, AverageUtilization: r.CurrentAverageUtilization}}
	}
	if c := in.ContainerResource; c != nil {
		v := c.CurrentAverageValue
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: c.Name, Container: c.Container,
			Current: autoscalingv2.MetricValueStatus{AverageValue: &v, AverageUtilization: c.CurrentAverageUtilization}}
	}
	if e := in.External; e != nil {
		v := e.CurrentValue
		out.External = &autoscalingv2.ExternalMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Current: autoscalingv2.MetricValueStatus{Value: &v, AverageValue: e.CurrentAverageValue}}
	}
	return out
}

func metricStatusFromV2(in autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(in.Type)}
	deref := func(q *resource.Quantity) resource.Quantity {
		if q == nil {
			return resource.Quantity{}
		}
		return *q
	}
	if o := in.Object; o != nil {
		out.Object = &autoscalingv1.ObjectMetricStatus{Target: autoscalingv1.CrossVersionObjectReference(o.DescribedObject),
			MetricName: o.Metric.Name, Selector: o.Metric.Selector, CurrentValue: deref(o.Current.Value), AverageValue: o.Current.AverageValue}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv1.PodsMetricStatus{MetricName: p.Metric.Name, Selector: p.Metric.Selector, CurrentAverageValue: deref(p.Current.AverageValue)}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv1.ResourceMetricStatus{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization, CurrentAverageValue: deref(r.Current.AverageValue)}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricStatus{Name: c.Name, Container: c.Container,
			CurrentAverageUtilization: c.Current.AverageUtilization, CurrentAverageValue: deref(c.Current.AverageValue)}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv1.ExternalMetricStatus{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector,
			CurrentValue: deref(e.Current.Value), CurrentAverageValue: e.Current.AverageValue}
	}
	return out
}
