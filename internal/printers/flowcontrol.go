package printers

import (
	"cmp"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// flowcontrolPrinters covers flowcontrol.apiserver.k8s.io/v1.
func flowcontrolPrinters() []registration {
	flowSchemas := cellsPrinter(flowSchemaColumns, flowSchemaCells)
	flowSchemas.printer.order = matchingOrder
	return []registration{flowSchemas, cellsPrinter(priorityLevelColumns, priorityLevelCells)}
}

var flowSchemaColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("PriorityLevel", "string", flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]),
	column("MatchingPrecedence", "string", flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["matchingPrecedence"]),
	column("DistinguisherMethod", "string", flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["distinguisherMethod"]),
	ageColumn(),
	column("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
}

func flowSchemaCells(fs *flowcontrolv1.FlowSchema, now time.Time) []any {
	method := "<none>"
	if d := fs.Spec.DistinguisherMethod; d != nil {
		method = string(d.Type)
	}
	// "?" until the server has judged the reference.
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(fs.Spec.MatchingPrecedence), method, since(fs.CreationTimestamp, now), missing}
}

// matchingOrder sorts FlowSchemas as requests are matched against them:
// by precedence, then by name.
func matchingOrder(a, b runtime.Object) int {
	fa, oka := a.(*flowcontrolv1.FlowSchema)
	fb, okb := b.(*flowcontrolv1.FlowSchema)
	if !oka || !okb {
		return 0
	}
	return cmp.Or(cmp.Compare(fa.Spec.MatchingPrecedence, fb.Spec.MatchingPrecedence), cmp.Compare(fa.Name, fb.Name))
}

var priorityLevelColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Type", "string", flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]),
	column("NominalConcurrencyShares", "string", flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]),
	column("Queues", "string", flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queues"]),
	column("HandSize", "string", flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["handSize"]),
	column("QueueLengthLimit", "string", flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queueLengthLimit"]),
	ageColumn(),
}

func priorityLevelCells(pl *flowcontrolv1.PriorityLevelConfiguration, now time.Time) []any {
	var shares, queues, handSize, queueLength any = "<none>", "<none>", "<none>", "<none>"
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares != nil {
			shares = int64(*l.NominalConcurrencyShares)
		}
		if q := l.LimitResponse.Queuing; q != nil {
			queues, handSize, queueLength = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
		}
	}
	return []any{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLength, since(pl.CreationTimestamp, now)}
}
