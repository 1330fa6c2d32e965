package validation

import (
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/defaults"
)

func validWebhook() admissionv1.ValidatingWebhook {
	return admissionv1.ValidatingWebhook{
		Name:                    "policy.example.com",
		ClientConfig:            admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "ns", Name: "svc"}},
		Rules:                   []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{"CREATE"}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
		SideEffects:             ptr(admissionv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

func vwc(hooks ...admissionv1.ValidatingWebhook) *admissionv1.ValidatingWebhookConfiguration {
	c := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: om("cfg"), Webhooks: hooks}
	defaults.Apply(c)
	return c
}

func TestValidatingWebhookConfigurationCreate(t *testing.T) {
	w := "webhooks[0]"
	tests := []struct {
		name   string
		mutate func(*admissionv1.ValidatingWebhook)
		want   []string
	}{
		{"valid", func(*admissionv1.ValidatingWebhook) {}, nil},
		{"name with two segments", func(h *admissionv1.ValidatingWebhook) { h.Name = "example.com" },
			[]string{w + `.name: Invalid value: "example.com": should be a domain with at least three segments separated by dots`}},
		{"empty name", func(h *admissionv1.ValidatingWebhook) { h.Name = "" },
			[]string{w + `.name: Required value`}},
		{"name not a subdomain", func(h *admissionv1.ValidatingWebhook) { h.Name = "Policy.Example.com" },
			[]string{w + `.name: Invalid value: "Policy.Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"no review versions", func(h *admissionv1.ValidatingWebhook) { h.AdmissionReviewVersions = nil },
			[]string{w + `.admissionReviewVersions: Required value: must specify one of v1, v1beta1`}},
		{"unknown review version only", func(h *admissionv1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v2"} },
			[]string{w + `.admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`}},
		{"duplicate review version", func(h *admissionv1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v1", "v1"} },
			[]string{w + `.admissionReviewVersions[1]: Invalid value: "v1": duplicate version`}},
		{"review version not a label", func(h *admissionv1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v1", "V2"} },
			[]string{w + `.admissionReviewVersions[1]: Invalid value: "V2": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"missing sideEffects", func(h *admissionv1.ValidatingWebhook) { h.SideEffects = nil },
			[]string{w + `.sideEffects: Required value: must specify one of None, NoneOnDryRun`}},
		{"sideEffects Some", func(h *admissionv1.ValidatingWebhook) { h.SideEffects = ptr(admissionv1.SideEffectClassSome) },
			[]string{w + `.sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"sideEffects NoneOnDryRun", func(h *admissionv1.ValidatingWebhook) { h.SideEffects = ptr(admissionv1.SideEffectClassNoneOnDryRun) }, nil},
		{"timeout 0", func(h *admissionv1.ValidatingWebhook) { h.TimeoutSeconds = ptr(int32(0)) },
			[]string{w + `.timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds`}},
		{"timeout 31", func(h *admissionv1.ValidatingWebhook) { h.TimeoutSeconds = ptr(int32(31)) },
			[]string{w + `.timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`}},
		{"timeout 30", func(h *admissionv1.ValidatingWebhook) { h.TimeoutSeconds = ptr(int32(30)) }, nil},
		{"bad failurePolicy", func(h *admissionv1.ValidatingWebhook) { h.FailurePolicy = ptr(admissionv1.FailurePolicyType("Maybe")) },
			[]string{w + `.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"`}},
		{"bad matchPolicy", func(h *admissionv1.ValidatingWebhook) { h.MatchPolicy = ptr(admissionv1.MatchPolicyType("Fuzzy")) },
			[]string{w + `.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"`}},
		{"neither url nor service", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig = admissionv1.WebhookClientConfig{} },
			[]string{w + `.clientConfig: Required value: exactly one of url or service is required`}},
		{"both url and service", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.URL = ptr("https://example.com") },
			[]string{w + `.clientConfig: Required value: exactly one of url or service is required`}},
		{"https url", func(h *admissionv1.ValidatingWebhook) {
			h.ClientConfig = admissionv1.WebhookClientConfig{URL: ptr("https://example.com:8443/validate")}
		}, nil},
		{"http url", func(h *admissionv1.ValidatingWebhook) {
			h.ClientConfig = admissionv1.WebhookClientConfig{URL: ptr("http://example.com/")}
		}, []string{w + `.clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`}},
		{"url without host", func(h *admissionv1.ValidatingWebhook) {
			h.ClientConfig = admissionv1.WebhookClientConfig{URL: ptr("https:///path")}
		}, []string{w + `.clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`}},
		{"url with user, query and fragment", func(h *admissionv1.ValidatingWebhook) {
			h.ClientConfig = admissionv1.WebhookClientConfig{URL: ptr("https://u:p@example.com/x?a=b#frag")}
		}, []string{
			w + `.clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL`,
			w + `.clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL`,
			w + `.clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL`,
		}},
		{"unparsable url", func(h *admissionv1.ValidatingWebhook) {
			h.ClientConfig = admissionv1.WebhookClientConfig{URL: ptr("https://exa mple.com")}
		}, []string{w + `.clientConfig.url: Required value: url must be a valid URL: parse "https://exa mple.com": invalid character " " in host name; desired format: https://host[/path]`}},
		{"service without name and namespace", func(h *admissionv1.ValidatingWebhook) {
			h.ClientConfig.Service = &admissionv1.ServiceReference{Port: ptr(int32(443))}
		}, []string{w + `.clientConfig.service.name: Required value`, w + `.clientConfig.service.namespace: Required value`}},
		{"service port 0", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.Service.Port = ptr(int32(0)) },
			[]string{w + `.clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive`}},
		{"service path good", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.Service.Path = ptr("/validate/pods/") }, nil},
		{"service path relative", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.Service.Path = ptr("validate") },
			[]string{
				w + `.clientConfig.service.path: Invalid value: "validate": must start with a '/'`,
			}},
		{"service path empty segment", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.Service.Path = ptr("/a//b") },
			[]string{w + `.clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty`}},
		{"service path double slash", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.Service.Path = ptr("//") },
			[]string{w + `.clientConfig.service.path: Invalid value: "//": segment[0] may not be empty`}},
		{"service path bad segment", func(h *admissionv1.ValidatingWebhook) { h.ClientConfig.Service.Path = ptr("/Foo") },
			[]string{w + `.clientConfig.service.path: Invalid value: "/Foo": segment[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"rule without anything", func(h *admissionv1.ValidatingWebhook) { h.Rules = []admissionv1.RuleWithOperations{{}} },
			[]string{
				w + `.rules[0].operations: Required value`,
				w + `.rules[0].apiGroups: Required value`,
				w + `.rules[0].apiVersions: Required value`,
				w + `.rules[0].resources: Required value`,
			}},
		{"wildcard mixed with others", func(h *admissionv1.ValidatingWebhook) {
			h.Rules[0].Operations = []admissionv1.OperationType{"*", "CREATE"}
			h.Rules[0].APIGroups = []string{"*", "apps"}
			h.Rules[0].APIVersions = []string{"*", "v1", ""}
		}, []string{
			w + `.rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`,
			w + `.rules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`,
			w + `.rules[0].apiVersions: Invalid value: ["*","v1",""]: if '*' is present, must not specify other API versions`,
			w + `.rules[0].apiVersions[2]: Required value`,
		}},
		{"unknown operation", func(h *admissionv1.ValidatingWebhook) { h.Rules[0].Operations = []admissionv1.OperationType{"PATCH"} },
			[]string{w + `.rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`}},
		{"all resources and subresources", func(h *admissionv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"*/*"} }, nil},
		{"*/* with others", func(h *admissionv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"*/*", "pods"} },
			[]string{w + `.rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`}},
		{"* with a plain resource", func(h *admissionv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"*", "pods"} },
			[]string{w + `.rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`}},
		{"* with subresources", func(h *admissionv1.ValidatingWebhook) { h.Rules[0].Resources = []string{"*", "pods/status"} }, nil},
		{"shadowed subresources", func(h *admissionv1.ValidatingWebhook) {
			h.Rules[0].Resources = []string{"pods/*", "pods/status", "*/scale", "deployments/scale", ""}
		}, []string{
			w + `.rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`,
			w + `.rules[0].resources[3]: Invalid value: "deployments/scale": if '*/scale' is present, must not specify deployments/scale`,
			w + `.rules[0].resources[4]: Required value`,
		}},
		{"bad scope", func(h *admissionv1.ValidatingWebhook) { h.Rules[0].Scope = ptr(admissionv1.ScopeType("Global")) },
			[]string{w + `.rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`}},
		{"bad namespace selector", func(h *admissionv1.ValidatingWebhook) {
			h.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "In"}}}
		}, []string{w + `.namespaceSelector.matchExpressions[0].values: Required value: must be specified when ` + "`operator`" + ` is 'In' or 'NotIn'`}},
		{"bad label value in object selector", func(h *admissionv1.ValidatingWebhook) {
			h.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a b"}}
		}, []string{w + `.objectSelector.matchLabels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"match conditions", func(h *admissionv1.ValidatingWebhook) {
			h.MatchConditions = []admissionv1.MatchCondition{
				{Name: "ok", Expression: "true"},
				{Name: "ok", Expression: "  "},
				{Name: "", Expression: "true"},
				{Name: "not a name!", Expression: "true"},
			}
		}, []string{
			w + `.matchConditions[1].expression: Required value`,
			w + `.matchConditions[1].name: Duplicate value: "ok"`,
			w + `.matchConditions[2].name: Required value`,
			w + `.matchConditions[3].name: Invalid value: "not a name!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
		{"too many match conditions", func(h *admissionv1.ValidatingWebhook) {
			for i := 0; i < 65; i++ {
				h.MatchConditions = append(h.MatchConditions, admissionv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: "true"})
			}
		}, []string{w + `.matchConditions: Too many: 65: must have at most 64 items`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := validWebhook()
			tc.mutate(&h)
			c := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: om("cfg"), Webhooks: []admissionv1.ValidatingWebhook{h}}
			// Defaults fill only what the case left nil.
			defaults.Apply(c)
			expectErrors(t, Create(c), tc.want)
		})
	}
}

func TestWebhookConfigurationNamesAndKinds(t *testing.T) {
	dup := vwc(validWebhook(), validWebhook())
	expectErrors(t, Create(dup), []string{`webhooks[1].name: Duplicate value: "policy.example.com"`})

	bad := vwc(validWebhook())
	bad.Name = "Bad_Name"
	bad.Namespace = "ns"
	expectErrors(t, Create(bad), []string{
		`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`metadata.namespace: Forbidden: not allowed on this type`,
	})

	m := &admissionv1.MutatingWebhookConfiguration{ObjectMeta: om("m"), Webhooks: []admissionv1.MutatingWebhook{{
		Name:                    "mutate.example.com",
		ClientConfig:            admissionv1.WebhookClientConfig{URL: ptr("https://example.com")},
		SideEffects:             ptr(admissionv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1beta1"},
		ReinvocationPolicy:      ptr(admissionv1.ReinvocationPolicyType("Always")),
	}}}
	defaults.Apply(m)
	expectErrors(t, Create(m), []string{`webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`})
}

func TestWebhookConfigurationUpdate(t *testing.T) {
	// Objects stored before the strict rules keep passing when edited.
	legacy := validWebhook()
	legacy.SideEffects = ptr(admissionv1.SideEffectClassSome)
	legacy.AdmissionReviewVersions = []string{"v2"}
	legacy.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "In", Values: []string{"b c"}}}}
	legacy.MatchConditions = []admissionv1.MatchCondition{{Name: "x", Expression: " "}}
	old := vwc(legacy, legacy)
	old.ResourceVersion = "5"
	cur := old.DeepCopy()
	cur.Labels = map[string]string{"edited": "true"}
	expectErrors(t, Update(cur, old), nil)

	// A strict old object keeps the strict rules.
	strictOld := vwc(validWebhook())
	strictOld.ResourceVersion = "5"
	cur2 := strictOld.DeepCopy()
	cur2.Webhooks[0].SideEffects = ptr(admissionv1.SideEffectClassSome)
	cur2.Webhooks[0].MatchConditions = []admissionv1.MatchCondition{{Name: "x"}}
	expectErrors(t, Update(cur2, strictOld), []string{
		`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`,
		`webhooks[0].matchConditions[0].expression: Required value`,
	})
}
