package webhook

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func conds(exprs ...string) []apiserverv1.WebhookMatchCondition {
	out := make([]apiserverv1.WebhookMatchCondition, len(exprs))
	for i, e := range exprs {
		out[i].Expression = e
	}
	return out
}

func TestCompileMatchConditionsErrors(t *testing.T) {
	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprintf("request.user == 'u%d'", i)
	}
	tests := []struct {
		name  string
		exprs []string
		want  []string
	}{
		{"none", nil, nil},
		{"valid", []string{"request.user == 'alice'", "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'default'"}, nil},
		{"64 is fine", many[:64], nil},
		{"65 is too many", many, []string{"authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items"}},
		{"blank", []string{"  "}, []string{"authorizers[0].webhook.matchConditions[0].expression: Required value"}},
		{"duplicate", []string{"request.user == 'admin'", "request.user == 'admin'"},
			[]string{`authorizers[0].webhook.matchConditions[1].expression: Duplicate value: "request.user == 'admin'"`}},
		{"undeclared", []string{"test"},
			[]string{"authorizers[0].webhook.matchConditions[0].expression: Invalid value: \"test\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'test' (in container '')\n | test\n | ^"}},
		{"syntax", []string{"request.user = 'test'"},
			[]string{"authorizers[0].webhook.matchConditions[0].expression: Invalid value: \"request.user = 'test'\": compilation failed: ERROR: <input>:1:14: Syntax error: token recognition error at: '= '\n | request.user = 'test'\n | .............^\nERROR: <input>:1:16: Syntax error: extraneous input ''test'' expecting <EOF>\n | request.user = 'test'\n | ...............^"}},
		{"not bool", []string{"request.user"},
			[]string{`authorizers[0].webhook.matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string`}},
		{"unknown field", []string{"request.username == 'x'"},
			[]string{"authorizers[0].webhook.matchConditions[0].expression: Invalid value: \"request.username == 'x'\": compilation failed: ERROR: <input>:1:8: undefined field 'username'\n | request.username == 'x'\n | .......^"}},
		{"all reported", []string{"", "1", "request.uid == 'x'"}, []string{
			"authorizers[0].webhook.matchConditions[0].expression: Required value",
			`authorizers[0].webhook.matchConditions[1].expression: Invalid value: "1": must evaluate to bool but got int`,
		}},
	}
	path := field.NewPath("authorizers").Index(0).Child("webhook")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, errs := CompileMatchConditions(conds(tt.exprs...), path)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("errors (-want +got):\n%s", d)
			}
			if len(tt.want) == 0 && m.Len() != len(tt.exprs) {
				t.Fatalf("compiled %d conditions, want %d", m.Len(), len(tt.exprs))
			}
			if len(tt.want) > 0 && m != nil {
				t.Fatal("a matcher despite errors")
			}
		})
	}
}

func TestMatch(t *testing.T) {
	fieldSel, _ := fields.ParseSelector("spec.nodeName=node-1")
	labelSel, _ := labels.Parse("app=web")
	labelReqs, _ := labelSel.Requirements()
	resource := authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: "alice", UID: "1", Groups: []string{"dev"},
			Extra: map[string][]string{"scopes": {"read"}}},
		Verb: "list", Namespace: "default", Resource: "pods", APIVersion: "v1", ResourceRequest: true,
		FieldSelectorRequirements: fieldSel.Requirements(),
		LabelSelectorRequirements: labelReqs,
	}
	tests := []struct {
		name    string
		exprs   []string
		attrs   authorizer.Attributes
		want    bool
		wantErr bool
	}{
		{"no conditions", nil, resource, true, false},
		{"user", []string{"request.user == 'alice'"}, resource, true, false},
		{"uid", []string{"request.uid == '1'"}, resource, true, false},
		{"groups", []string{"'dev' in request.groups"}, resource, true, false},
		{"extra", []string{"request.extra['scopes'] == ['read']"}, resource, true, false},
		{"resource", []string{"has(request.resourceAttributes) && request.resourceAttributes.namespace == 'default'"}, resource, true, false},
		{"resource excluded", []string{"!has(request.resourceAttributes)"}, resource, false, false},
		{"non-resource", []string{"has(request.nonResourceAttributes) && request.nonResourceAttributes.path == '/healthz'"}, healthz("bob"), true, false},
		{"field selector", []string{"request.resourceAttributes.fieldSelector.requirements.exists(r, r.key == 'spec.nodeName' && r.operator == 'In' && r.values == ['node-1'])"}, resource, true, false},
		{"optional label selector", []string{"request.resourceAttributes.?labelSelector.requirements.orValue([]).exists(r, r.key == 'app')"}, resource, true, false},
		{"all must hold", []string{"request.user == 'alice'", "request.uid == '2'"}, resource, false, false},
		{"missing key errs", []string{"request.resourceAttributes.namespace == 'x'"}, healthz("bob"), false, true},
		{"false wins over an error", []string{"request.resourceAttributes.namespace == 'x'", "request.user == 'nobody'"}, healthz("bob"), false, false},
		{"error wins over true", []string{"request.resourceAttributes.namespace == 'x'", "request.user == 'bob'"}, healthz("bob"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, errs := CompileMatchConditions(conds(tt.exprs...), nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			spec := SpecFor(tt.attrs)
			got, err := m.Match(background, &spec)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("got (%v, %v), want (%v, err %v)", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrMatchCondition) {
				t.Fatalf("error %v is not ErrMatchCondition", err)
			}
		})
	}
}

// TestMatchConditionsOnTheWebhook: false skips the webhook, an error
// applies the failure policy, true calls it.
func TestMatchConditionsOnTheWebhook(t *testing.T) {
	tests := []struct {
		name      string
		expr      string
		policy    string
		want      authorizer.Decision
		wantErr   bool
		wantCalls int64
		errors    float64
		exclusion float64
	}{
		{"true calls the webhook", "request.user == 'alice'", "Deny", authorizer.DecisionAllow, false, 1, 0, 0},
		{"false skips it", "request.user == 'bob'", "Deny", authorizer.DecisionNoOpinion, false, 0, 0, 1},
		{"error with Deny denies", "request.nonResourceAttributes.path == '/'", "Deny", authorizer.DecisionDeny, true, 0, 1, 0},
		{"error with NoOpinion skips", "request.nonResourceAttributes.path == '/'", "NoOpinion", authorizer.DecisionNoOpinion, true, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, errs := CompileMatchConditions(conds(tt.expr), nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			e := newEnv(t, func(c *Config) {
				c.Matcher = m
				c.FailurePolicy = tt.policy
			})
			d, _, err := e.az.Authorize(background, podsList("alice"))
			if d != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("got (%v, %v), want (%v, err %v)", d, err, tt.want, tt.wantErr)
			}
			if got := e.hook.calls.Load(); got != tt.wantCalls {
				t.Errorf("%d calls, want %d", got, tt.wantCalls)
			}
			if got := testutil.ToFloat64(e.metrics.matchErrors.WithLabelValues("Webhook", "policy")); got != tt.errors {
				t.Errorf("match_condition_evaluation_errors_total = %v, want %v", got, tt.errors)
			}
			if got := testutil.ToFloat64(e.metrics.matchExclude.WithLabelValues("Webhook", "policy")); got != tt.exclusion {
				t.Errorf("match_condition_exclusions_total = %v, want %v", got, tt.exclusion)
			}
			if got := testutil.CollectAndCount(e.metrics.matchSeconds); got != 1 {
				t.Errorf("match_condition_evaluation_seconds has %d series, want 1", got)
			}
		})
	}
}

func TestSpecForUserless(t *testing.T) {
	spec := SpecFor(authorizer.AttributesRecord{Verb: "get", Path: "/version"})
	want := authorizationv1.SubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/version", Verb: "get"}}
	if d := cmp.Diff(want, spec); d != "" {
		t.Fatal(d)
	}
}

// TestMetricNames: the families are exported under kube-apiserver's names
// and labels.
func TestMetricNames(t *testing.T) {
	m, _ := CompileMatchConditions(conds("request.user != 'nobody'"), nil)
	e := newEnv(t, func(c *Config) { c.Matcher = m; c.Backoff = fastBackoff(1) })
	e.hook.setAnswer(raw(500, ""))
	_, _, _ = e.az.Authorize(background, podsList("alice"))
	families, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range families {
		for _, l := range f.GetMetric()[0].GetLabel() {
			got[f.GetName()] = append(got[f.GetName()], l.GetName())
		}
	}
	want := map[string][]string{
		"apiserver_authorization_webhook_evaluations_total":           {"name", "result"},
		"apiserver_authorization_webhook_duration_seconds":            {"name", "result"},
		"apiserver_authorization_webhook_evaluations_fail_open_total": {"name", "result"},
		"apiserver_authorization_match_condition_evaluation_seconds":  {"name", "type"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("metric families (-want +got):\n%s", d)
	}
}
