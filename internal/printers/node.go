package printers

import (
	"time"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nodePrinters covers node.k8s.io/v1 (runtime classes); Node objects
// themselves are in core_node.go.
func nodePrinters() []registration {
	return []registration{cellsPrinter(runtimeClassColumns, runtimeClassCells)}
}

var runtimeClassColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Handler", "string", nodev1.RuntimeClass{}.SwaggerDoc()["handler"]),
	ageColumn(),
}

func runtimeClassCells(rc *nodev1.RuntimeClass, now time.Time) []any {
	return []any{rc.Name, rc.Handler, since(rc.CreationTimestamp, now)}
}
