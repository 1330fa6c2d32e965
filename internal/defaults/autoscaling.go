package defaults

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// hpaV1 sets autoscaling/v1's one default; the CPU target an autoscaler
// without metrics gets is set when it is converted to v2, where the
// metrics kept in annotations are known.
func hpaV1(hpa *autoscalingv1.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptr[int32](1)
	}
}

// hpaV2 defaults an autoscaler to one replica at least, 80 % CPU
// utilization when it names no metric, and fills in each scaling rule of
// a behavior it sets with the controller's historical rules.
func hpaV2(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	s := &hpa.Spec
	if s.MinReplicas == nil {
		s.MinReplicas = ptr[int32](1)
	}
	if len(s.Metrics) == 0 {
		s.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](80)},
		}}}
	}
	if b := s.Behavior; b != nil {
		b.ScaleUp = withRuleDefaults(b.ScaleUp, scaleUpRules())
		b.ScaleDown = withRuleDefaults(b.ScaleDown, scaleDownRules())
	}
}

// scaleUpRules: at once, the larger of 4 pods or 100 % every 15 seconds.
func scaleUpRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr[int32](0),
		SelectPolicy:               ptr(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// scaleDownRules: up to 100 % every 15 seconds; the stabilization window
// is left to the controller's flag.
func scaleDownRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr(autoscalingv2.MaxChangePolicySelect),
		Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
}

// withRuleDefaults keeps what set gives and takes the rest from defaults.
func withRuleDefaults(set, defaults *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if set == nil {
		return defaults
	}
	if set.SelectPolicy != nil {
		defaults.SelectPolicy = set.SelectPolicy
	}
	if set.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = set.StabilizationWindowSeconds
	}
	if set.Policies != nil {
		defaults.Policies = set.Policies
	}
	if set.Tolerance != nil {
		defaults.Tolerance = set.Tolerance
	}
	return defaults
}
