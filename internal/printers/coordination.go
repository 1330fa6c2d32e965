package printers

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// coordinationPrinters covers coordination.k8s.io/v1.
func coordinationPrinters() []registration {
	return []registration{cellsPrinter(leaseColumns, leaseCells)}
}

var leaseColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Holder", "string", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]),
	ageColumn(),
}

func leaseCells(l *coordinationv1.Lease, now time.Time) []any {
	return []any{l.Name, stringOr(l.Spec.HolderIdentity, ""), since(l.CreationTimestamp, now)}
}
