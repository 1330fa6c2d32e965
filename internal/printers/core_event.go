package printers

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var eventDoc = corev1.Event{}.SwaggerDoc()

// coreEventColumns serve both core/v1 and events.k8s.io/v1 events: they are
// one resource in two shapes, and kube-apiserver prints both alike.
var coreEventColumns = []metav1.TableColumnDefinition{
	column("Last Seen", "string", eventDoc["lastTimestamp"]),
	column("Type", "string", eventDoc["type"]),
	column("Reason", "string", eventDoc["reason"]),
	column("Object", "string", eventDoc["involvedObject"]),
	wideColumn("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]),
	wideColumn("Source", "string", eventDoc["source"]),
	column("Message", "string", eventDoc["message"]),
	wideColumn("First Seen", "string", eventDoc["firstTimestamp"]),
	wideColumn("Count", "string", eventDoc["count"]),
	{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: objectMetaDoc["name"]},
}

// eventView holds what the event columns show, whichever API the event came
// from.
type eventView struct {
	name                             string
	firstTimestamp, lastTimestamp    metav1.Time
	eventTime                        metav1.MicroTime
	count                            int32
	series                           *corev1.EventSeries
	regarding                        corev1.ObjectReference
	source                           corev1.EventSource
	reportingController, reportingID string
	typ, reason, message             string
}

func coreEventCells(e *corev1.Event, now time.Time) []any {
	return eventCells(eventView{
		name:                e.Name,
		firstTimestamp:      e.FirstTimestamp,
		lastTimestamp:       e.LastTimestamp,
		eventTime:           e.EventTime,
		count:               e.Count,
		series:              e.Series,
		regarding:           e.InvolvedObject,
		source:              e.Source,
		reportingController: e.ReportingController,
		reportingID:         e.ReportingInstance,
		typ:                 e.Type,
		reason:              e.Reason,
		message:             e.Message,
	}, now)
}

func eventCells(e eventView, now time.Time) []any {
	// Events written with the newer API have an event time and a series
	// instead of first/last timestamps and a count.
	first := since(e.firstTimestamp, now)
	if e.firstTimestamp.IsZero() {
		first = sinceMicro(e.eventTime, now)
	}
	last := since(e.lastTimestamp, now)
	if e.lastTimestamp.IsZero() {
		last = first
	}
	count := e.count
	switch {
	case e.series != nil:
		last = sinceMicro(e.series.LastObservedTime, now)
		count = e.series.Count
	case count == 0:
		count = 1 // a singleton event
	}

	object := strings.ToLower(e.regarding.Kind)
	if e.regarding.Name != "" {
		object += "/" + e.regarding.Name
	}
	component := firstNonEmpty(e.source.Component, e.reportingController)
	source := component
	if instance := firstNonEmpty(e.source.Host, e.reportingID); instance != "" {
		source += ", " + instance
	}
	return []any{
		last, e.typ, e.reason, object, e.regarding.FieldPath, source,
		strings.TrimSpace(e.message), first, int64(count), e.name,
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
