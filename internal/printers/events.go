package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// eventsPrinters covers events.k8s.io, which shows the core events through
// the newer field names.
func eventsPrinters() []registration {
	return []registration{cellsPrinter(coreEventColumns, eventsEventCells)}
}

func eventsEventCells(e *eventsv1.Event, now time.Time) []any {
	v := eventView{
		name:                e.Name,
		firstTimestamp:      e.DeprecatedFirstTimestamp,
		lastTimestamp:       e.DeprecatedLastTimestamp,
		eventTime:           e.EventTime,
		count:               e.DeprecatedCount,
		regarding:           e.Regarding,
		source:              e.DeprecatedSource,
		reportingController: e.ReportingController,
		reportingID:         e.ReportingInstance,
		typ:                 e.Type,
		reason:              e.Reason,
		message:             e.Note,
	}
	if e.Series != nil {
		v.series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return eventCells(v, now)
}
