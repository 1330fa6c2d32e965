package registry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func i32(v int32) *int32 { return &v }

func q(s string) *resource.Quantity { v := resource.MustParse(s); return &v }

// TestHPARoundTripThroughV1: a v2 autoscaler read and written back through
// autoscaling/v1 keeps every v2 field, and v1 readers see its CPU target.
func TestHPARoundTripThroughV1(t *testing.T) {
	policy := autoscalingv2.MinChangePolicySelect
	in := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "ns", Annotations: map[string]string{"keep": "me"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    i32(2), MaxReplicas: 9,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("1k")}}},
				{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
					DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: "main"},
					Metric:          autoscalingv2.MetricIdentifier{Name: "rps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: q("10k")}}},
				{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "queue"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("30")}}},
				{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
					Name: "memory", Container: "app", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("200Mi")}}},
				cpuUtilization(50),
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
				SelectPolicy: &policy, Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}, Tolerance: q("50m")}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: 3, DesiredReplicas: 4,
			CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: "cpu", Current: autoscalingv2.MetricValueStatus{AverageUtilization: i32(42), AverageValue: q("100m")}}}},
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: "True", Reason: "Ready"}},
		},
	}
	v1, err := HPAFromV2(in)
	if err != nil {
		t.Fatal(err)
	}
	old := v1.(*autoscalingv1.HorizontalPodAutoscaler)
	if got := old.Spec.TargetCPUUtilizationPercentage; got == nil || *got != 50 {
		t.Errorf("targetCPUUtilizationPercentage = %v, want 50", got)
	}
	if got := old.Status.CurrentCPUUtilizationPercentage; got == nil || *got != 42 {
		t.Errorf("currentCPUUtilizationPercentage = %v, want 42", got)
	}
	for _, k := range []string{hpaMetricsAnnotation, hpaBehaviorAnnotation, hpaCurrentMetricsAnnotation, hpaConditionsAnnotation, "keep"} {
		if _, ok := old.Annotations[k]; !ok {
			t.Errorf("v1 object lacks annotation %s: %v", k, old.Annotations)
		}
	}
	back, err := HPAToV2(old)
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(in, back) {
		t.Errorf("round trip through v1 (-want +got):\n%s", cmp.Diff(in, back))
	}
}

// TestHPAFromV1Defaults: a v1 autoscaler without a CPU target gets the
// 80 % one on its way to v2, and the round-trip annotations are consumed.
func TestHPAFromV1Defaults(t *testing.T) {
	in := &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "h", Annotations: map[string]string{hpaConditionsAnnotation: `not json`}},
		Spec:       autoscalingv1.HorizontalPodAutoscalerSpec{MaxReplicas: 3},
	}
	out, err := HPAToV2(in)
	if err != nil {
		t.Fatal(err)
	}
	hpa := out.(*autoscalingv2.HorizontalPodAutoscaler)
	want := []autoscalingv2.MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	if diff := cmp.Diff(want, hpa.Spec.Metrics); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	if len(hpa.Annotations) != 0 {
		t.Errorf("annotations %v, want none", hpa.Annotations)
	}
}
