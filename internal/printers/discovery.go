package printers

import (
	"strconv"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// discoveryPrinters covers discovery.k8s.io/v1.
func discoveryPrinters() []registration {
	return []registration{cellsPrinter(endpointSliceColumns, endpointSliceCells)}
}

var endpointSliceDoc = discoveryv1.EndpointSlice{}.SwaggerDoc()

var endpointSliceColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("AddressType", "string", endpointSliceDoc["addressType"]),
	column("Ports", "string", endpointSliceDoc["ports"]),
	column("Endpoints", "string", endpointSliceDoc["endpoints"]),
	ageColumn(),
}

// endpointSliceShown is how many ports and addresses the cells list.
const endpointSliceShown = 3

func endpointSliceCells(s *discoveryv1.EndpointSlice, now time.Time) []any {
	ports := make([]string, len(s.Ports))
	for i, p := range s.Ports {
		switch {
		case p.Port != nil:
			ports[i] = strconv.Itoa(int(*p.Port))
		case p.Name != nil:
			ports[i] = *p.Name
		default:
			ports[i] = "*"
		}
	}
	var addresses []string
	for _, e := range s.Endpoints {
		addresses = append(addresses, e.Addresses...)
	}
	return []any{
		s.Name, string(s.AddressType), firstN(ports, endpointSliceShown), firstN(addresses, endpointSliceShown),
		since(s.CreationTimestamp, now),
	}
}
