package definition

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type names = apiextensionsv1.CustomResourceDefinitionNames

type condition = apiextensionsv1.CustomResourceDefinitionCondition

// named is a definition of group requesting n, with accepted names
// accepted.
func named(group string, n, accepted names) *crd {
	return &crd{
		ObjectMeta: metav1.ObjectMeta{Name: n.Plural + "." + group},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: n},
		Status:     apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: accepted},
	}
}

var (
	widgetNames = names{Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Kind: "Widget", ListKind: "WidgetList", Categories: []string{"all"}}
	gadgetNames = names{Plural: "gadgets", Singular: "gadget", ShortNames: []string{"gd"}, Kind: "Gadget", ListKind: "GadgetList"}

	accepted = condition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue, Reason: ReasonNoConflicts, Message: "no conflicts found"}
	install  = condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: ReasonInstalling, Message: "the initial names have been accepted"}
	refused  = condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: ReasonNotAccepted, Message: "not all names are accepted"}
)

func conflict(reason, message string) condition {
	return condition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionFalse, Reason: reason, Message: message}
}

func rename(c *crd, name string) *crd {
	c.Name = name
	return c
}

func TestAcceptNames(t *testing.T) {
	with := func(n names, f func(*names)) names {
		n = *n.DeepCopy()
		f(&n)
		return n
	}
	tests := []struct {
		name          string
		crd           *crd
		all           []*crd
		wantNames     names
		wantAccepted  condition
		wantEstablish condition
	}{
		{name: "alone", crd: named("example.com", widgetNames, names{}),
			wantNames: widgetNames, wantAccepted: accepted, wantEstablish: install},
		{name: "plural taken", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{named("example.com", gadgetNames, with(gadgetNames, func(n *names) { n.Plural = "widgets" }))},
			wantNames: with(widgetNames, func(n *names) { n.Plural = "" }), wantAccepted: conflict(ReasonPluralConflict, `"widgets" is already in use`), wantEstablish: refused},
		{name: "singular taken by a short name", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{named("example.com", gadgetNames, with(gadgetNames, func(n *names) { n.ShortNames = []string{"widget"} }))},
			wantNames: with(widgetNames, func(n *names) { n.Singular = "" }), wantAccepted: conflict(ReasonSingularConflict, `"widget" is already in use`), wantEstablish: refused},
		{name: "short names taken", crd: named("example.com", with(widgetNames, func(n *names) { n.ShortNames = []string{"gd", "wd", "gadget"} }), names{}),
			all:       []*crd{named("example.com", gadgetNames, gadgetNames)},
			wantNames: with(widgetNames, func(n *names) { n.ShortNames = nil }), wantAccepted: conflict(ReasonShortNamesConflict, `["gd" is already in use, "gadget" is already in use]`), wantEstablish: refused},
		{name: "kind taken by a list kind", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{named("example.com", gadgetNames, with(gadgetNames, func(n *names) { n.ListKind = "Widget" }))},
			wantNames: with(widgetNames, func(n *names) { n.Kind = "" }), wantAccepted: conflict(ReasonKindConflict, `"Widget" is already in use`), wantEstablish: refused},
		{name: "list kind taken", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{named("example.com", gadgetNames, with(gadgetNames, func(n *names) { n.Kind = "WidgetList" }))},
			wantNames: with(widgetNames, func(n *names) { n.ListKind = "" }), wantAccepted: conflict(ReasonListKindConflict, `"WidgetList" is already in use`), wantEstablish: refused},
		{name: "the last conflict names the reason", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{rename(named("example.com", widgetNames, widgetNames), "widgets2.example.com")},
			wantNames: names{Categories: []string{"all"}}, wantAccepted: conflict(ReasonListKindConflict, `"WidgetList" is already in use`), wantEstablish: refused},
		{name: "another group", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{named("example.org", widgetNames, widgetNames)},
			wantNames: widgetNames, wantAccepted: accepted, wantEstablish: install},
		{name: "requested names do not claim", crd: named("example.com", widgetNames, names{}),
			all:       []*crd{named("example.com", widgetNames, names{})},
			wantNames: widgetNames, wantAccepted: accepted, wantEstablish: install},
		{name: "own names, listed in all", crd: named("example.com", widgetNames, widgetNames),
			all:       []*crd{named("example.com", widgetNames, widgetNames)},
			wantNames: widgetNames, wantAccepted: accepted, wantEstablish: install},
		{name: "a name moving between own fields is taken", crd: named("example.com", with(widgetNames, func(n *names) { n.ShortNames = []string{"widget"}; n.Singular = "wdgt" }), widgetNames),
			wantNames: with(widgetNames, func(n *names) { n.Singular = "wdgt" }), wantAccepted: conflict(ReasonShortNamesConflict, `"widget" is already in use`), wantEstablish: refused},
		{name: "an established definition stays established", crd: established(named("example.com", with(widgetNames, func(n *names) { n.ShortNames = []string{"gd"} }), widgetNames)),
			all:           []*crd{named("example.com", gadgetNames, gadgetNames)},
			wantNames:     widgetNames,
			wantAccepted:  conflict(ReasonShortNamesConflict, `"gd" is already in use`),
			wantEstablish: condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: ReasonInitialNamesAccepted},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.crd.DeepCopy()
			n, a, e := AcceptNames(tc.crd, tc.all)
			if diff := cmp.Diff(tc.wantNames, n); diff != "" {
				t.Errorf("accepted names (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAccepted, a); diff != "" {
				t.Errorf("NamesAccepted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEstablish, e); diff != "" {
				t.Errorf("Established (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.crd); diff != "" {
				t.Errorf("AcceptNames changed its argument (-before +after):\n%s", diff)
			}
		})
	}
}

func TestNamesUpToDate(t *testing.T) {
	tests := []struct {
		name string
		crd  *crd
		want bool
	}{
		{name: "accepted", crd: named("example.com", widgetNames, widgetNames), want: true},
		{name: "empty and missing short names are the same", crd: named("example.com", names{Plural: "a", ShortNames: []string{}}, names{Plural: "a"}), want: true},
		{name: "new short name", crd: named("example.com", widgetNames, names{Plural: "widgets"}), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NamesUpToDate(tc.crd); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
