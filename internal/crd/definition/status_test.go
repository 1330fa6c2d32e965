package definition

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func withConditions(c *crd, conds ...condition) *crd {
	c.Status.Conditions = append(c.Status.Conditions, conds...)
	return c
}

func TestEstablishedCondition(t *testing.T) {
	webhook := func(bundle []byte) *crd {
		c := withConditions(named("example.com", widgetNames, widgetNames), accepted, install)
		c.Spec.Conversion = webhookConversion(apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://convert.example.com"), CABundle: bundle}, "v1")
		return c
	}
	tests := []struct {
		name   string
		crd    *crd
		want   condition
		wantOK bool
	}{
		{name: "names not yet accepted", crd: named("example.com", widgetNames, names{})},
		{name: "names refused", crd: withConditions(named("example.com", widgetNames, names{}), conflict(ReasonPluralConflict, "x"), refused)},
		{name: "installing", crd: withConditions(named("example.com", widgetNames, widgetNames), accepted, install), wantOK: true,
			want: condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: ReasonInitialNamesAccepted, Message: "the initial names have been accepted"}},
		{name: "already established", crd: established(withConditions(named("example.com", widgetNames, widgetNames), accepted))},
		{name: "webhook without caBundle", crd: webhook(nil), wantOK: true,
			want: condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: ReasonInitialNamesAccepted, Message: "the initial names have been accepted"}},
		{name: "webhook with a caBundle", crd: webhook(caBundle(t)), wantOK: true,
			want: condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: ReasonInitialNamesAccepted, Message: "the initial names have been accepted"}},
		{name: "webhook with a bad caBundle", crd: webhook([]byte("junk")), wantOK: true,
			want: condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: ReasonInvalidCABundle, Message: "The conversion webhook CABundle is invalid"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := EstablishedCondition(tc.crd)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPIApprovalCondition(t *testing.T) {
	const link = "https://github.com/kubernetes/enhancements/pull/1111"
	tests := []struct {
		name       string
		group      string
		annotation *string
		want       *condition
	}{
		{name: "unprotected group", group: "example.com", want: nil},
		{name: "k8s.io look-alike", group: "notk8s.io", want: nil},
		{name: "missing", group: "k8s.io", want: &condition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionFalse,
			Reason: ReasonMissingAnnotation, Message: `protected groups must have approval annotation "api-approved.kubernetes.io", see ` + link}},
		{name: "approved", group: "x.kubernetes.io", annotation: ptr.To(link), want: &condition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionTrue,
			Reason: ReasonApprovedAnnotation, Message: "approved in " + link}},
		{name: "unapproved", group: "x.k8s.io", annotation: ptr.To("unapproved, testing only"), want: &condition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionFalse,
			Reason: ReasonUnapprovedAnnotation, Message: `not approved: "unapproved, testing only"`}},
		{name: "neither", group: "kubernetes.io", annotation: ptr.To("/relative"), want: &condition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionFalse,
			Reason: ReasonInvalidAnnotation, Message: `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see ` + link}},
		{name: "not a URL at all", group: "kubernetes.io", annotation: ptr.To("%zz"), want: &condition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionFalse,
			Reason: ReasonInvalidAnnotation, Message: `protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see ` + link}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := named(tc.group, widgetNames, names{})
			if tc.annotation != nil {
				c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: *tc.annotation}
			}
			if diff := cmp.Diff(tc.want, APIApprovalCondition(c)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// at stamps c with the transition time t.
func at(c condition, t time.Time) condition {
	c.LastTransitionTime = metav1.NewTime(t)
	return c
}

// TestNextStatusSequence follows one definition as the controller sees
// it: created, its names accepted, established, then a short name that
// another definition holds.
func TestNextStatusSequence(t *testing.T) {
	c := named("example.com", widgetNames, names{})
	c.Annotations = nil

	u := NextStatus(c, nil, t0)
	want := apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: widgetNames, Conditions: []condition{at(accepted, t0), at(install, t0)}}
	if diff := cmp.Diff(want, u.Status); diff != "" || !u.Changed || !u.Names {
		t.Fatalf("first: changed %v names %v, status (-want +got):\n%s", u.Changed, u.Names, diff)
	}
	c.Status = u.Status

	t1 := t0.Add(time.Second)
	u = NextStatus(c, nil, t1)
	want.Conditions[1] = at(condition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: ReasonInitialNamesAccepted, Message: "the initial names have been accepted"}, t1)
	if diff := cmp.Diff(want, u.Status); diff != "" || !u.Changed || u.Names {
		t.Fatalf("second: changed %v names %v, status (-want +got):\n%s", u.Changed, u.Names, diff)
	}
	c.Status = u.Status
	if !IsEstablished(c) {
		t.Fatal("not established")
	}

	if u = NextStatus(c, nil, t1.Add(time.Second)); u.Changed {
		t.Fatalf("third: changed to %+v", u.Status)
	}

	t3 := t1.Add(2 * time.Second)
	c.Spec.Names.ShortNames = []string{"wd", "gd"}
	u = NextStatus(c, []*crd{named("example.com", gadgetNames, gadgetNames)}, t3)
	want.Conditions[0] = at(conflict(ReasonShortNamesConflict, `"gd" is already in use`), t3)
	if diff := cmp.Diff(want, u.Status); diff != "" || !u.Changed || !u.Names {
		t.Fatalf("conflict: changed %v names %v, status (-want +got):\n%s", u.Changed, u.Names, diff)
	}
	c.Status = u.Status

	// The conflict clears once the other definition is gone; the
	// Established condition keeps its time.
	t4 := t3.Add(time.Second)
	u = NextStatus(c, nil, t4)
	want.AcceptedNames.ShortNames = []string{"wd", "gd"}
	want.Conditions[0] = at(accepted, t4)
	if diff := cmp.Diff(want, u.Status); diff != "" || !u.Changed || !u.Names {
		t.Fatalf("resolved: changed %v names %v, status (-want +got):\n%s", u.Changed, u.Names, diff)
	}
}

func TestNextStatusAPIApproval(t *testing.T) {
	c := named("x.k8s.io", widgetNames, widgetNames)
	c = withConditions(c, accepted)
	c = established(c)
	u := NextStatus(c, nil, t0)
	if !u.Changed || u.Names {
		t.Fatalf("changed %v names %v", u.Changed, u.Names)
	}
	got := FindCondition(&crd{Status: u.Status}, apiextensionsv1.KubernetesAPIApprovalPolicyConformant)
	if got == nil || got.Reason != ReasonMissingAnnotation || !got.LastTransitionTime.Time.Equal(t0) {
		t.Fatalf("approval condition %+v", got)
	}
	c.Status = u.Status
	c.Annotations = map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "unapproved"}
	u = NextStatus(c, nil, t0.Add(time.Minute))
	got = FindCondition(&crd{Status: u.Status}, apiextensionsv1.KubernetesAPIApprovalPolicyConformant)
	// Still False: the reason changes, the transition time does not.
	if !u.Changed || got.Reason != ReasonUnapprovedAnnotation || !got.LastTransitionTime.Time.Equal(t0) {
		t.Fatalf("changed %v, approval condition %+v", u.Changed, got)
	}
}

func TestVersionHelpers(t *testing.T) {
	c := stored()
	c.Spec.Versions[0].Served = false
	tests := []struct {
		name string
		got  any
		want any
	}{
		{name: "storage version", got: StorageVersion(c), want: "v1"},
		{name: "no storage version", got: StorageVersion(&crd{}), want: ""},
		{name: "served", got: HasServedVersion(c, "v1"), want: true},
		{name: "not served", got: HasServedVersion(c, "v1beta1"), want: false},
		{name: "unknown", got: HasServedVersion(c, "v2"), want: false},
		{name: "stored", got: IsStoredVersion(c, "v1beta1"), want: true},
		{name: "not stored", got: IsStoredVersion(c, "v2"), want: false},
		{name: "not established", got: IsEstablished(c), want: false},
		{name: "established", got: IsEstablished(established(c.DeepCopy())), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
}
