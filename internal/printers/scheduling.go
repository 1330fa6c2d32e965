package printers

import (
	"time"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// schedulingPrinters covers scheduling.k8s.io/v1.
func schedulingPrinters() []registration {
	return []registration{cellsPrinter(priorityClassColumns, priorityClassCells)}
}

var priorityClassDoc = schedulingv1.PriorityClass{}.SwaggerDoc()

var priorityClassColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Value", "integer", priorityClassDoc["value"]),
	column("Global-Default", "boolean", priorityClassDoc["globalDefault"]),
	ageColumn(),
	column("PreemptionPolicy", "string", priorityClassDoc["preemptionPolicy"]),
}

func priorityClassCells(pc *schedulingv1.PriorityClass, now time.Time) []any {
	preemption := ""
	if pc.PreemptionPolicy != nil {
		preemption = string(*pc.PreemptionPolicy)
	}
	return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, since(pc.CreationTimestamp, now), preemption}
}
