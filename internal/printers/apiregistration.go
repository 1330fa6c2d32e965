package printers

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// apiregistrationPrinters covers apiregistration.k8s.io/v1.
func apiregistrationPrinters() []registration {
	return []registration{cellsPrinter(apiServiceColumns, apiServiceCells)}
}

var apiServiceColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Service", "string", "The reference to the service that hosts this API endpoint."),
	column("Available", "string", "Whether this service is available."),
	ageColumn(),
}

func apiServiceCells(s *apiregistrationv1.APIService, now time.Time) []any {
	service := "Local"
	if ref := s.Spec.Service; ref != nil {
		service = ref.Namespace + "/" + ref.Name
	}
	available := string(apiregistrationv1.ConditionUnknown)
	for _, c := range s.Status.Conditions {
		if c.Type != apiregistrationv1.Available {
			continue
		}
		available = string(c.Status)
		if c.Status != apiregistrationv1.ConditionTrue && c.Reason != "" {
			available = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
		}
		break
	}
	return []any{s.Name, service, available, since(s.CreationTimestamp, now)}
}
