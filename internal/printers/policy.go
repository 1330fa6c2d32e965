package printers

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// policyPrinters covers policy/v1.
func policyPrinters() []registration {
	return []registration{cellsPrinter(podDisruptionBudgetColumns, podDisruptionBudgetCells)}
}

var podDisruptionBudgetColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Min Available", "string", policyv1.PodDisruptionBudgetSpec{}.SwaggerDoc()["minAvailable"]),
	column("Max Unavailable", "string", policyv1.PodDisruptionBudgetSpec{}.SwaggerDoc()["maxUnavailable"]),
	column("Allowed Disruptions", "integer", policyv1.PodDisruptionBudgetStatus{}.SwaggerDoc()["disruptionsAllowed"]),
	ageColumn(),
}

func podDisruptionBudgetCells(pdb *policyv1.PodDisruptionBudget, now time.Time) []any {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if v := pdb.Spec.MinAvailable; v != nil {
		minAvailable = v.String()
	}
	if v := pdb.Spec.MaxUnavailable; v != nil {
		maxUnavailable = v.String()
	}
	return []any{
		pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed),
		since(pdb.CreationTimestamp, now),
	}
}
