package printers

import (
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// printer renders one object type: its columns and, for one object, the row
// cells (and conditions) in the same order. Object is filled in by Table.
type printer struct {
	columns []metav1.TableColumnDefinition
	row     func(obj runtime.Object, now time.Time) (metav1.TableRow, error)
	// order, when set, sorts a list's rows (kube-apiserver prints
	// FlowSchemas in matching order rather than by name).
	order func(a, b runtime.Object) int
}

// registration pairs a printer with the Go type (a pointer to a struct) it
// handles; each API group file returns its own.
type registration struct {
	typ     reflect.Type
	printer printer
}

// cellsPrinter adapts a typed function that returns the cells of one object.
func cellsPrinter[T runtime.Object](columns []metav1.TableColumnDefinition, cells func(obj T, now time.Time) []any) registration {
	return rowPrinter(columns, func(obj T, now time.Time) metav1.TableRow {
		return metav1.TableRow{Cells: cells(obj, now)}
	})
}

// rowPrinter adapts a typed function that returns a whole row, for the few
// types (pods) whose rows carry conditions too.
func rowPrinter[T runtime.Object](columns []metav1.TableColumnDefinition, row func(obj T, now time.Time) metav1.TableRow) registration {
	typ := reflect.TypeFor[T]()
	return registration{
		typ: typ,
		printer: printer{
			columns: columns,
			row: func(obj runtime.Object, now time.Time) (metav1.TableRow, error) {
				t, ok := obj.(T)
				if !ok {
					return metav1.TableRow{}, fmt.Errorf("%w: %T where %v was expected", ErrUnexpectedType, obj, typ)
				}
				return row(t, now), nil
			},
		},
	}
}

// registrations lists every printer; the groups contribute theirs.
func registrations() []registration {
	var all []registration
	for _, group := range [][]registration{
		corePrinters(),
		eventsPrinters(),
		appsPrinters(),
		batchPrinters(),
		rbacPrinters(),
		coordinationPrinters(),
		storagePrinters(),
		certificatesPrinters(),
		admissionregistrationPrinters(),
		networkingPrinters(),
		discoveryPrinters(),
		policyPrinters(),
		schedulingPrinters(),
		nodePrinters(),
		autoscalingPrinters(),
		flowcontrolPrinters(),
		apiregistrationPrinters(),
		apiextensionsPrinters(),
	} {
		all = append(all, group...)
	}
	return all
}

// registry is built once; it is read-only afterwards, so concurrent requests
// can share it.
var registry = index(registrations())

func index(regs []registration) map[reflect.Type]printer {
	m := make(map[reflect.Type]printer, len(regs))
	for _, r := range regs {
		m[r.typ] = r.printer
	}
	return m
}

// printerFor returns the printer of a Go type, or the default printer.
func printerFor(typ reflect.Type) printer {
	if p, ok := registry[typ]; ok {
		return p
	}
	return defaultPrinter
}
