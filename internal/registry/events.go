package registry

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// StoredAs is set on a resource whose objects are another resource's,
// served through a second API: kube-apiserver keeps events.k8s.io Events
// as core Events, so both APIs show one set of objects. Keys, encoding and
// the resource named in errors are the stored resource's.
type StoredAs struct {
	// Resource is the stored resource.
	Resource *Resource
	// ToStored and FromStored convert between the two kinds.
	ToStored   func(runtime.Object) (runtime.Object, error)
	FromStored func(runtime.Object) (runtime.Object, error)
}

// eventsAsCore stores events.k8s.io/v1 Events as core/v1 Events.
func eventsAsCore(core *Resource) *StoredAs {
	return &StoredAs{Resource: core, ToStored: eventToCore, FromStored: eventFromCore}
}

// eventToCore maps an events.k8s.io/v1 Event onto the core one, field by
// field as the two APIs document their correspondence.
func eventToCore(obj runtime.Object) (runtime.Object, error) {
	e, ok := obj.(*eventsv1.Event)
	if !ok {
		return nil, fmt.Errorf("%T is not an events.k8s.io/v1 Event", obj)
	}
	out := &corev1.Event{
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Source:              e.DeprecatedSource,
	}
	if s := e.Series; s != nil {
		out.Series = &corev1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return out, nil
}

func eventFromCore(obj runtime.Object) (runtime.Object, error) {
	c, ok := obj.(*corev1.Event)
	if !ok {
		return nil, fmt.Errorf("%T is not a core/v1 Event", obj)
	}
	out := &eventsv1.Event{
		ObjectMeta:               c.ObjectMeta,
		Regarding:                c.InvolvedObject,
		Reason:                   c.Reason,
		Note:                     c.Message,
		Type:                     c.Type,
		EventTime:                c.EventTime,
		Action:                   c.Action,
		Related:                  c.Related,
		ReportingController:      c.ReportingController,
		ReportingInstance:        c.ReportingInstance,
		DeprecatedFirstTimestamp: c.FirstTimestamp,
		DeprecatedLastTimestamp:  c.LastTimestamp,
		DeprecatedCount:          c.Count,
		DeprecatedSource:         c.Source,
	}
	if s := c.Series; s != nil {
		out.Series = &eventsv1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return out, nil
}
