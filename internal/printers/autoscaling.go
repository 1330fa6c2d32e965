package printers

import (
	"fmt"
	"strings"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	served "github.com/portcullis/portcullis/internal/registry"
)

// autoscalingPrinters covers autoscaling/v2 and v1 HorizontalPodAutoscalers,
// one table for both: a v1 object is printed as the v2 one it is stored as.
func autoscalingPrinters() []registration {
	return []registration{
		cellsPrinter(hpaColumns, hpaCells),
		cellsPrinter(hpaColumns, func(hpa *autoscalingv1.HorizontalPodAutoscaler, now time.Time) []any {
			v2, err := served.HPAToV2(hpa)
			if err != nil {
				return hpaCells(&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: hpa.ObjectMeta}, now)
			}
			return hpaCells(v2.(*autoscalingv2.HorizontalPodAutoscaler), now)
		}),
	}
}

var (
	hpaSpecDoc   = autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()
	hpaStatusDoc = autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
)

var hpaColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Reference", "string", hpaSpecDoc["scaleTargetRef"]),
	column("Targets", "string", hpaSpecDoc["metrics"]),
	column("MinPods", "string", hpaSpecDoc["minReplicas"]),
	column("MaxPods", "string", hpaSpecDoc["maxReplicas"]),
	column("Replicas", "string", hpaStatusDoc["currentReplicas"]),
	ageColumn(),
}

func hpaCells(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time) []any {
	minPods := unset
	if m := hpa.Spec.MinReplicas; m != nil {
		minPods = fmt.Sprintf("%d", *m)
	}
	ref := hpa.Spec.ScaleTargetRef
	return []any{hpa.Name, ref.Kind + "/" + ref.Name, hpaTargets(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods,
		int64(hpa.Spec.MaxReplicas), int64(hpa.Status.CurrentReplicas), since(hpa.CreationTimestamp, now)}
}

// hpaTargets renders "current/target" per metric, the first two of them,
// with the current value from the status entry at the same index.
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return none
	}
	const shown = 2
	q := func(v *resource.Quantity) string { return v.String() }
	var list []string
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		current := unknown
		switch spec.Type {
		case autoscalingv2.ExternalMetricSourceType:
			if t := spec.External.Target; t.AverageValue != nil {
				if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
					current = q(st.External.Current.AverageValue)
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, q(t.AverageValue)))
			} else {
				if st != nil && st.External != nil {
					current = q(st.External.Current.Value)
				}
				list = append(list, fmt.Sprintf("%s/%s", current, q(t.Value)))
			}
		case autoscalingv2.PodsMetricSourceType:
			if st != nil && st.Pods != nil {
				current = q(st.Pods.Current.AverageValue)
			}
			list = append(list, fmt.Sprintf("%s/%s", current, q(spec.Pods.Target.AverageValue)))
		case autoscalingv2.ObjectMetricSourceType:
			if t := spec.Object.Target; t.AverageValue != nil {
				if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
					current = q(st.Object.Current.AverageValue)
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, q(t.AverageValue)))
			} else {
				if st != nil && st.Object != nil {
					current = q(st.Object.Current.Value)
				}
				list = append(list, fmt.Sprintf("%s/%s", current, q(t.Value)))
			}
		case autoscalingv2.ResourceMetricSourceType:
			var cur *autoscalingv2.MetricValueStatus
			if st != nil && st.Resource != nil {
				cur = &st.Resource.Current
			}
			list = append(list, string(spec.Resource.Name)+": "+resourceTarget(spec.Resource.Target, cur))
		case autoscalingv2.ContainerResourceMetricSourceType:
			var cur *autoscalingv2.MetricValueStatus
			if st != nil && st.ContainerResource != nil {
				cur = &st.ContainerResource.Current
			}
			list = append(list, string(spec.ContainerResource.Name)+": "+resourceTarget(spec.ContainerResource.Target, cur))
		default:
			list = append(list, "<unknown type>")
		}
	}
	if len(list) > shown {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:shown], ", "), len(list)-shown)
	}
	return strings.Join(list, ", ")
}

// resourceTarget renders a resource metric's "current/target": raw values
// when the target is one, utilization percentages otherwise.
func resourceTarget(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := unknown
	if t.AverageValue != nil {
		if cur != nil {
			current = cur.AverageValue.String()
		}
		return current + "/" + t.AverageValue.String()
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	target := "<auto>"
	if t.AverageUtilization != nil {
		target = fmt.Sprintf("%d%%", *t.AverageUtilization)
	}
	return current + "/" + target
}
