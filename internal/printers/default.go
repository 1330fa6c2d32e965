package printers

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultPrinter is what kube-apiserver serves for resources without a
// printer of their own (roles, limit ranges, custom resources without
// printer columns): the name and the creation time in RFC 3339, in UTC.
var defaultPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn(),
		{Name: "Created At", Type: "date", Description: objectMetaDoc["creationTimestamp"]},
	},
	row: func(obj runtime.Object, _ time.Time) (metav1.TableRow, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return metav1.TableRow{}, fmt.Errorf("%w: %T: %w", ErrNotTable, obj, err)
		}
		created := m.GetCreationTimestamp().UTC().Format(time.RFC3339)
		return metav1.TableRow{Cells: []any{m.GetName(), created}}, nil
	},
}
