package printers

import (
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func autoscalingCases() []goldenCase {
	q := func(s string) *resource.Quantity { return ptr(resource.MustParse(s)) }
	deploy := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	return []goldenCase{
		{name: "horizontalpodautoscalers", obj: &autoscalingv2.HorizontalPodAutoscalerList{Items: []autoscalingv2.HorizontalPodAutoscaler{
			{ObjectMeta: objectMeta("cpu", time.Hour), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: deploy, MinReplicas: ptr[int32](1), MaxReplicas: 5,
				Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "cpu",
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](80)}}}}},
				Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
					Resource: &autoscalingv2.ResourceMetricStatus{Name: "cpu", Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr[int32](42)}}}}}},
			{ObjectMeta: objectMeta("many", time.Minute), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: deploy, MaxReplicas: 9,
				Metrics: []autoscalingv2.MetricSpec{
					{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Target: autoscalingv2.MetricTarget{AverageValue: q("1k")}}},
					{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{Target: autoscalingv2.MetricTarget{AverageValue: q("30")}}},
					{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{Target: autoscalingv2.MetricTarget{Value: q("10k")}}},
				}}},
		}}},
		{name: "horizontalpodautoscalers-v1", obj: &autoscalingv1.HorizontalPodAutoscalerList{Items: []autoscalingv1.HorizontalPodAutoscaler{
			{ObjectMeta: objectMeta("v1", time.Hour), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr[int32](60)}},
		}}},
		{name: "clustertrustbundles", obj: &certificatesv1.ClusterTrustBundleList{Items: []certificatesv1.ClusterTrustBundle{
			{ObjectMeta: clusterMeta("plain", time.Hour)},
			{ObjectMeta: clusterMeta("example.com:signer:one", time.Hour), Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/signer"}},
		}}},
	}
}
