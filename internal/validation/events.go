package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits on the free-text fields of an event.
const (
	reportingInstanceLengthLimit = 128
	actionLengthLimit            = 128
	reasonLengthLimit            = 128
	noteLengthLimit              = 1024
)

// validateCoreEvent applies the lenient rules of the core/v1 API: old
// clients write events freely, so only the namespace agreement and, for
// new-style events (with eventTime), the reporting fields are checked.
func validateCoreEvent(e *corev1.Event) field.ErrorList {
	errs := validateMeta(&e.ObjectMeta, true, nameIsPathSegment)
	return append(errs, legacyEventChecks(e)...)
}

func validateCoreEventUpdate(e, old *corev1.Event) field.ErrorList {
	errs := validateMetaUpdate(&e.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateCoreEvent(e)...)
}

func legacyEventChecks(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	ioNS := field.NewPath("involvedObject", "namespace")
	if e.EventTime.IsZero() {
		if e.InvolvedObject.Namespace == "" {
			// Old clients put such events in "default".
			if e.Namespace != metav1.NamespaceNone && e.Namespace != metav1.NamespaceDefault {
				errs = append(errs, field.Invalid(ioNS, e.InvolvedObject.Namespace, "does not match event.namespace"))
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			errs = append(errs, field.Invalid(ioNS, e.InvolvedObject.Namespace, "does not match event.namespace"))
		}
	} else {
		if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
			errs = append(errs, field.Invalid(ioNS, e.InvolvedObject.Namespace, "does not match event.namespace"))
		}
		rc := field.NewPath("reportingController")
		if e.ReportingController == "" {
			errs = append(errs, field.Required(rc, ""))
		}
		errs = append(errs, qualifiedName(e.ReportingController, rc)...)
		errs = append(errs, requiredBounded(e.ReportingInstance, reportingInstanceLengthLimit, field.NewPath("reportingInstance"))...)
		errs = append(errs, requiredBounded(e.Action, actionLengthLimit, field.NewPath("action"))...)
		errs = append(errs, requiredBounded(e.Reason, reasonLengthLimit, field.NewPath("reason"))...)
		if len(e.Message) > noteLengthLimit {
			errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", noteLengthLimit)))
		}
	}
	for _, msg := range isDNS1123Subdomain(e.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), e.Namespace, msg))
	}
	return errs
}

func requiredBounded(v string, limit int, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v == "" {
		errs = append(errs, field.Required(p, ""))
	}
	if len(v) > limit {
		errs = append(errs, field.Invalid(p, "", fmt.Sprintf("can have at most %v characters", limit)))
	}
	return errs
}

// coreFromEventsV1 maps an events.k8s.io/v1 Event onto the core shape that
// kube-apiserver stores and validates: its messages name the core fields
// (message, involvedObject, source), and so do ours.
func coreFromEventsV1(e *eventsv1.Event) *corev1.Event {
	ce := &corev1.Event{
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
		Action:              e.Action,
	}
	if e.Series != nil {
		ce.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return ce
}

// validateEventsV1 applies the strict rules of events.k8s.io/v1.
func validateEventsV1(ev *eventsv1.Event) field.ErrorList {
	e := coreFromEventsV1(ev)
	errs := legacyEventChecks(e)
	errs = append(errs, validateMeta(&e.ObjectMeta, true, nameIsDNSSubdomain)...)
	errs = append(errs, eventSeriesChecks(e)...)
	if e.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.FirstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !e.LastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if e.Count != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if e.Source.Component != "" || e.Source.Host != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return errs
}

func eventSeriesChecks(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	if e.Series != nil {
		if e.Series.Count < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
		}
		if e.Series.LastObservedTime.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
		}
	}
	return errs
}

func validateEventsV1Update(ev, oldEv *eventsv1.Event) field.ErrorList {
	e, old := coreFromEventsV1(ev), coreFromEventsV1(oldEv)
	errs := legacyEventChecks(e)
	errs = append(errs, validateMetaUpdate(&e.ObjectMeta, &old.ObjectMeta)...)
	if !equalSeries(e.Series, old.Series) {
		errs = append(errs, eventSeriesChecks(e)...)
	}
	// Everything but the series and metadata is fixed once recorded.
	errs = append(errs, immutable(e.InvolvedObject, old.InvolvedObject, field.NewPath("involvedObject"))...)
	errs = append(errs, immutable(e.Reason, old.Reason, field.NewPath("reason"))...)
	errs = append(errs, immutable(e.Message, old.Message, field.NewPath("message"))...)
	errs = append(errs, immutable(e.Source, old.Source, field.NewPath("source"))...)
	errs = append(errs, immutable(e.FirstTimestamp, old.FirstTimestamp, field.NewPath("firstTimestamp"))...)
	errs = append(errs, immutable(e.LastTimestamp, old.LastTimestamp, field.NewPath("lastTimestamp"))...)
	errs = append(errs, immutable(e.Count, old.Count, field.NewPath("count"))...)
	errs = append(errs, immutable(e.Reason, old.Reason, field.NewPath("reason"))...)
	errs = append(errs, immutable(e.Type, old.Type, field.NewPath("type"))...)
	errs = append(errs, immutable(e.EventTime, old.EventTime, field.NewPath("eventTime"))...)
	errs = append(errs, immutable(e.Action, old.Action, field.NewPath("action"))...)
	errs = append(errs, immutable(e.Related, old.Related, field.NewPath("related"))...)
	errs = append(errs, immutable(e.ReportingController, old.ReportingController, field.NewPath("reportingController"))...)
	return append(errs, immutable(e.ReportingInstance, old.ReportingInstance, field.NewPath("reportingInstance"))...)
}

func equalSeries(a, b *corev1.EventSeries) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Count == b.Count && a.LastObservedTime.Equal(&b.LastObservedTime)
}
