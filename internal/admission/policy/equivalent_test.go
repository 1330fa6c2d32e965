package policy

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
)

// widgetsV1 matches CREATE and UPDATE of widgets in v1 only.
func widgetsV1(policy admissionregistrationv1.MatchPolicyType) policyOpt {
	return constraints(&admissionregistrationv1.MatchResources{
		MatchPolicy: &policy,
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
		}}},
	})
}

// TestEquivalentVersions follows kube-apiserver: a policy for v1 of a
// custom resource judges a v2 request on the object converted to v1, and
// its request variable names v1 as kind and resource and v2 as what the
// client asked for.
func TestEquivalentVersions(t *testing.T) {
	seen := withValidation(admissionregistrationv1.Validation{Expression: "false",
		MessageExpression: "'kind=' + request.kind.version + ' resource=' + request.resource.version + ' requestKind=' + request.requestKind.version + " +
			"' requestResource=' + request.requestResource.version + ' object=' + object.apiVersion + ' old=' + oldObject.apiVersion + ' size=' + string(object.spec.size)"})
	tests := []struct {
		name    string
		policy  admissionregistrationv1.MatchPolicyType
		version string
		want    string
	}{
		{name: "v2 request, Equivalent", policy: admissionregistrationv1.Equivalent, version: "v2",
			want: "kind=v1 resource=v1 requestKind=v2 requestResource=v2 object=example.com/v1 old=example.com/v1 size=3"},
		{name: "v1 request", policy: admissionregistrationv1.Equivalent, version: "v1",
			want: "kind=v1 resource=v1 requestKind=v1 requestResource=v1 object=example.com/v1 old=example.com/v1 size=3"},
		{name: "v2 request, Exact", policy: admissionregistrationv1.Exact, version: "v2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &policytest.Widgets{}
			p := newPlugin(options(newEnv()), vap("widgets", widgetsV1(tc.policy), seen), vapb("widgets", "widgets"))
			a := policytest.WidgetRequest(admission.Update, w,
				policytest.Widget(tc.version, "default", "w", map[string]any{"size": int64(3)}),
				policytest.Widget(tc.version, "default", "w", map[string]any{"size": int64(2)}))
			err, _ := run(p, a)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("a v1 policy with Exact judged a v2 request: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("the policy did not apply")
			}
			se := statusOf(t, err)
			if want := "ValidatingAdmissionPolicy 'widgets' with binding 'widgets' denied request: " + tc.want; !strings.HasSuffix(se.ErrStatus.Message, want) {
				t.Errorf("message %q, want it to end in %q", se.ErrStatus.Message, want)
			}
			if got := a.Object.GetObjectKind().GroupVersionKind().Version; got != tc.version {
				t.Errorf("the request's object is now %s, want it left in %s", got, tc.version)
			}
		})
	}
}

// TestEquivalentConversionOncePerRequest: every policy that matches
// through the same version shares one conversion.
func TestEquivalentConversionOncePerRequest(t *testing.T) {
	w := &policytest.Widgets{}
	p := newPlugin(options(newEnv()),
		vap("a", widgetsV1(admissionregistrationv1.Equivalent), validate("object.spec.size > 0")), vapb("a", "a"),
		vap("b", widgetsV1(admissionregistrationv1.Equivalent), validate("object.spec.size > 1")), vapb("b", "b"))
	a := policytest.WidgetRequest(admission.Create, w, policytest.Widget("v2", "default", "w", map[string]any{"size": int64(3)}), nil)
	if err, _ := run(p, a); err != nil {
		t.Fatal(err)
	}
	if w.Converted != 1 {
		t.Errorf("converted %d times, want once", w.Converted)
	}
}

// TestEquivalentConversionError: a conversion that fails is a binding
// configuration error, which the failure policy decides.
func TestEquivalentConversionError(t *testing.T) {
	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		t.Run(string(fp), func(t *testing.T) {
			p := newPlugin(options(newEnv()), vap("widgets", widgetsV1(admissionregistrationv1.Equivalent), failurePolicy(fp), validate("true")), vapb("widgets", "widgets"))
			a := policytest.WidgetRequest(admission.Create, &policytest.Widgets{}, policytest.Widget("v2", "default", "w", nil), nil)
			a.Object = &metav1.Status{} // not convertible
			err, _ := run(p, a)
			if fp == admissionregistrationv1.Ignore {
				if err != nil {
					t.Fatalf("Ignore: %v", err)
				}
				return
			}
			want := "ValidatingAdmissionPolicy 'widgets' with binding 'widgets' denied request: failed to configure binding: failed to convert object version: converting to example.com/v1, Kind=Widget:"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want it to contain %q", err, want)
			}
		})
	}
}
