package registry

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEventsRoundTrip: every field of an events.k8s.io Event survives
// being stored as a core Event, so neither API loses what the other wrote.
func TestEventsRoundTrip(t *testing.T) {
	now := metav1.NewMicroTime(metav1.Now().Rfc3339Copy().Time)
	ts := metav1.Now().Rfc3339Copy()
	in := &eventsv1.Event{
		ObjectMeta:               metav1.ObjectMeta{Name: "e", Namespace: "ns", Labels: map[string]string{"a": "b"}},
		EventTime:                now,
		Series:                   &eventsv1.EventSeries{Count: 3, LastObservedTime: now},
		ReportingController:      "example.com/c",
		ReportingInstance:        "c-1",
		Action:                   "Pull",
		Reason:                   "Pulled",
		Regarding:                corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "ns"},
		Related:                  &corev1.ObjectReference{Kind: "Node", Name: "n"},
		Note:                     "pulled",
		Type:                     "Normal",
		DeprecatedSource:         corev1.EventSource{Component: "kubelet", Host: "n"},
		DeprecatedFirstTimestamp: ts,
		DeprecatedLastTimestamp:  ts,
		DeprecatedCount:          2,
	}
	stored, err := eventToCore(in)
	if err != nil {
		t.Fatal(err)
	}
	c := stored.(*corev1.Event)
	if c.Message != "pulled" || c.InvolvedObject.Name != "p" || c.ReportingController != "example.com/c" || c.Count != 2 {
		t.Errorf("core event %+v does not carry the fields", c)
	}
	back, err := eventFromCore(stored)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if _, err := eventToCore(c); err == nil {
		t.Error("a core Event converted as an events.k8s.io one")
	}
}
