package validation

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/defaults"
)

func podRules() *admissionv1.MatchResources {
	return &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{"CREATE", "UPDATE"},
			Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		},
	}}}
}

func validVAP() *admissionv1.ValidatingAdmissionPolicy {
	return &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: om("x"),
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: podRules(),
			Validations:      []admissionv1.Validation{{Expression: "object.spec.replicas < 5"}},
		},
	}
}

func TestValidatingAdmissionPolicyCreate(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(*admissionv1.ValidatingAdmissionPolicy)
		noDefault bool
		want      []string
	}{
		{name: "valid", mutate: func(*admissionv1.ValidatingAdmissionPolicy) {}},
		{name: "expression required", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Expression = "" },
			want: []string{`spec.validations[0].expression: Required value: expression is not specified`}},
		{name: "blank expression", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Expression = " \n" },
			want: []string{`spec.validations[0].expression: Required value: expression is not specified`}},
		{name: "message with line break", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Message = "too\nmany" },
			want: []string{`spec.validations[0].message: Invalid value: "too\nmany": must not contain line breaks`}},
		{name: "blank message", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Message = "  " },
			want: []string{`spec.validations[0].message: Invalid value: "  ": must be non-empty if specified`}},
		{name: "blank messageExpression", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations[0].MessageExpression = " " },
			want: []string{`spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified`}},
		{name: "unknown reason", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations[0].Reason = ptr(metav1.StatusReason("Teapot"))
		}, want: []string{`spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`}},
		{name: "known reason", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations[0].Reason = ptr(metav1.StatusReasonRequestEntityTooLarge)
		}},
		{name: "no validations nor audit annotations", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.Validations = nil },
			want: []string{
				`spec.validations: Required value: validations or auditAnnotations must contain at least one item`,
				`spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item`,
			}},
		{name: "matchConstraints required", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Spec.MatchConstraints = nil },
			want: []string{`spec.matchConstraints: Required value`}},
		{name: "resourceRules required", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints = &admissionv1.MatchResources{}
		}, want: []string{`spec.matchConstraints.resourceRules: Required value`}},
		{name: "undefaulted matchConstraints", noDefault: true, mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.FailurePolicy = ptr(admissionv1.Fail)
			p.Spec.MatchConstraints.ResourceRules[0].ResourceNames = []string{"a", "a", "b/c"}
			p.Spec.MatchConstraints.ResourceRules[0].Operations = []admissionv1.OperationType{"CREATE", "PATCH"}
		}, want: []string{
			`spec.matchConstraints.matchPolicy: Required value`,
			`spec.matchConstraints.namespaceSelector: Required value`,
			`spec.matchConstraints.objectSelector: Required value`,
			`spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"`,
			`spec.matchConstraints.resourceRules[0].resourceNames[2]: Invalid value: "b/c": may not contain '/'`,
			`spec.matchConstraints.resourceRules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
		}},
		{name: "failurePolicy required without defaults", noDefault: true, mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.MatchPolicy = ptr(admissionv1.Exact)
			p.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{}
			p.Spec.MatchConstraints.ObjectSelector = &metav1.LabelSelector{}
		}, want: []string{`spec.failurePolicy: Required value`}},
		{name: "bad failurePolicy", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.FailurePolicy = ptr(admissionv1.FailurePolicyType("Retry"))
		}, want: []string{`spec.failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"`}},
		{name: "paramKind", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionv1.ParamKind{APIVersion: "example.com/v1", Kind: "ReplicaLimit"}
		}},
		{name: "paramKind missing fields", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionv1.ParamKind{}
		}, want: []string{`spec.paramKind.apiVersion: Required value`, `spec.paramKind.kind: Required value`}},
		{name: "paramKind bad values", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionv1.ParamKind{APIVersion: "a/b/c", Kind: "Bad_Kind"}
		}, want: []string{
			`spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
			`spec.paramKind.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{name: "paramKind without version", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionv1.ParamKind{APIVersion: "example.com/", Kind: "Limit"}
		}, want: []string{`spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified`}},
		{name: "variables", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionv1.Variable{
				{Name: "ok_1", Expression: "1"},
				{Name: "", Expression: "1"},
				{Name: "1bad", Expression: "1"},
				{Name: "in", Expression: " "},
			}
		}, want: []string{
			`spec.variables[1].name: Required value: name is not specified`,
			`spec.variables[2].name: Invalid value: "1bad": must be a valid CEL identifier`,
			`spec.variables[3].name: Invalid value: "in": must be a valid CEL identifier`,
			`spec.variables[3].expression: Required value: expression is not specified`,
		}},
		{name: "audit annotations", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.AuditAnnotations = []admissionv1.AuditAnnotation{
				{Key: "good", ValueExpression: "'x'"},
				{Key: "good", ValueExpression: "'y'"},
				{Key: "bad key", ValueExpression: ""},
				{Key: "long", ValueExpression: strings.Repeat("x", 5*1024+1)},
			}
		}, want: []string{
			`spec.auditAnnotations[1].key: Duplicate value: "good"`,
			`spec.auditAnnotations[2].key: Invalid value: "x/bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`spec.auditAnnotations[2].valueExpression: Required value: valueExpression is not specified`,
			`spec.auditAnnotations[3].valueExpression: Required value: must not exceed 5120 bytes in length`,
		}},
		{name: "match conditions", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "a", Expression: ""}}
		}, want: []string{`spec.matchConditions[0].expression: Required value`}},
		{name: "bad name", mutate: func(p *admissionv1.ValidatingAdmissionPolicy) { p.Name = "X" },
			want: []string{`metadata.name: Invalid value: "X": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validVAP()
			tc.mutate(p)
			if !tc.noDefault {
				defaults.Apply(p)
			}
			expectErrors(t, Create(p), tc.want)
		})
	}
}

func TestValidatingAdmissionPolicyUpdateKeepsStoredMatchConditions(t *testing.T) {
	old := validVAP()
	old.ResourceVersion = "1"
	old.Spec.MatchConditions = []admissionv1.MatchCondition{{Name: "legacy", Expression: " "}}
	defaults.Apply(old)
	cur := old.DeepCopy()
	cur.Spec.Validations[0].Message = "edited"
	expectErrors(t, Update(cur, old), nil)

	cur.Spec.MatchConditions = append(cur.Spec.MatchConditions, admissionv1.MatchCondition{Name: "new", Expression: "true"})
	expectErrors(t, Update(cur, old), []string{`spec.matchConditions[0].expression: Required value`})
}

func validMAP() *admissionv1.MutatingAdmissionPolicy {
	p := &admissionv1.MutatingAdmissionPolicy{
		ObjectMeta: om("m"),
		Spec: admissionv1.MutatingAdmissionPolicySpec{
			MatchConstraints:   podRules(),
			ReinvocationPolicy: admissionv1.NeverReinvocationPolicy,
			Mutations: []admissionv1.Mutation{{
				PatchType:          admissionv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionv1.ApplyConfiguration{Expression: "Object{}"},
			}},
		},
	}
	return p
}

func TestMutatingAdmissionPolicyCreate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*admissionv1.MutatingAdmissionPolicy)
		want   []string
	}{
		{"valid", func(*admissionv1.MutatingAdmissionPolicy) {}, nil},
		{"json patch", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = []admissionv1.Mutation{{PatchType: admissionv1.PatchTypeJSONPatch, JSONPatch: &admissionv1.JSONPatch{Expression: `[JSONPatch{op: "add", path: "/metadata/labels", value: {}}]`}}}
		}, nil},
		// Messages recorded from kube-apiserver v1.37.2 (map-policies validation-errors).
		{"json patch of no type", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = []admissionv1.Mutation{{PatchType: admissionv1.PatchTypeJSONPatch, JSONPatch: &admissionv1.JSONPatch{Expression: "[]"}}}
		}, []string{`spec.mutations[0].jsonPatch.expression: Invalid value: "[]": must evaluate to list(JSONPatch) but got list(dyn)`}},
		{"apply configuration not an Object", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations[0].ApplyConfiguration.Expression = "{'a': 'b'}"
		}, []string{`spec.mutations[0].applyConfiguration.expression: Invalid value: "{'a': 'b'}": must evaluate to Object but got map(string, string)`}},
		{"no mutations", func(p *admissionv1.MutatingAdmissionPolicy) { p.Spec.Mutations = nil },
			[]string{`spec.mutations: Required value: mutations must contain at least one item`}},
		{"no patch type", func(p *admissionv1.MutatingAdmissionPolicy) { p.Spec.Mutations[0].PatchType = "" },
			[]string{`spec.mutations[0].patchType: Required value`}},
		{"unknown patch type", func(p *admissionv1.MutatingAdmissionPolicy) { p.Spec.Mutations[0].PatchType = "Merge" },
			[]string{`spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"`}},
		{"apply configuration missing", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations[0].ApplyConfiguration = nil
			p.Spec.Mutations[0].JSONPatch = &admissionv1.JSONPatch{Expression: "[]"}
		}, []string{
			`spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration`,
			`spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration`,
		}},
		{"json patch missing", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations[0].PatchType = admissionv1.PatchTypeJSONPatch
		},
			[]string{
				`spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch`,
				`spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch`,
			}},
		{"empty expressions", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionv1.Mutation{PatchType: admissionv1.PatchTypeJSONPatch, JSONPatch: &admissionv1.JSONPatch{}})
			p.Spec.Mutations[0].ApplyConfiguration.Expression = ""
		}, []string{
			`spec.mutations[0].applyConfiguration.expression: Required value`,
			`spec.mutations[1].jsonPatch.expression: Required value`,
		}},
		{"reinvocation policy required", func(p *admissionv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "" },
			[]string{`spec.reinvocationPolicy: Required value`}},
		{"bad reinvocation policy", func(p *admissionv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "Always" },
			[]string{`spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`}},
		{"delete cannot be mutated", func(p *admissionv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].Operations = []admissionv1.OperationType{"DELETE"}
		}, []string{`spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validMAP()
			tc.mutate(p)
			defaults.Apply(p)
			expectErrors(t, Create(p), tc.want)
		})
	}
}

func TestPolicyBindingsCreate(t *testing.T) {
	valid := func() *admissionv1.ValidatingAdmissionPolicyBinding {
		return &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: om("b"), Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "x", ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		}}
	}
	deny := ptr(admissionv1.DenyAction)
	tests := []struct {
		name   string
		mutate func(*admissionv1.ValidatingAdmissionPolicyBinding)
		want   []string
	}{
		{"valid", func(*admissionv1.ValidatingAdmissionPolicyBinding) {}, nil},
		{"policyName required", func(b *admissionv1.ValidatingAdmissionPolicyBinding) { b.Spec.PolicyName = "" },
			[]string{`spec.policyName: Required value`}},
		{"policyName not a subdomain", func(b *admissionv1.ValidatingAdmissionPolicyBinding) { b.Spec.PolicyName = "A" },
			[]string{`spec.policyName: Invalid value: "A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"validationActions required", func(b *admissionv1.ValidatingAdmissionPolicyBinding) { b.Spec.ValidationActions = nil },
			[]string{`spec.validationActions: Required value`}},
		{"validationActions bad, duplicate, Deny with Warn", func(b *admissionv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.ValidationActions = []admissionv1.ValidationAction{"Deny", "Warn", "Deny", "Log"}
		}, []string{
			`spec.validationActions[2]: Duplicate value: "Deny"`,
			`spec.validationActions[3]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"`,
			`spec.validationActions: Invalid value: ["Deny","Warn","Deny","Log"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
		}},
		{"Warn with Audit", func(b *admissionv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.ValidationActions = []admissionv1.ValidationAction{"Warn", "Audit"}
		}, nil},
		{"paramRef by name", func(b *admissionv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionv1.ParamRef{Name: "limits", Namespace: "ns", ParameterNotFoundAction: deny}
		}, nil},
		{"paramRef with neither", func(b *admissionv1.ValidatingAdmissionPolicyBinding) { b.Spec.ParamRef = &admissionv1.ParamRef{} },
			[]string{`spec.paramRef: Required value: one of name or selector must be specified`, `spec.paramRef.parameterNotFoundAction: Required value`}},
		{"paramRef with both", func(b *admissionv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionv1.ParamRef{Name: "a", Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: ptr(admissionv1.ParameterNotFoundActionType("Skip"))}
		}, []string{
			`spec.paramRef.name: Forbidden: name and selector are mutually exclusive`,
			`spec.paramRef.selector: Forbidden: name and selector are mutually exclusive`,
			`spec.paramRef.parameterNotFoundAction: Unsupported value: "Skip": supported values: "Deny", "Allow"`,
		}},
		{"paramRef with bad name", func(b *admissionv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionv1.ParamRef{Name: "a%b", ParameterNotFoundAction: deny}
		}, []string{`spec.paramRef.name: Invalid value: "a%b": may not contain '%'`}},
		{"matchResources checked", func(b *admissionv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.MatchResources = &admissionv1.MatchResources{MatchPolicy: ptr(admissionv1.MatchPolicyType("x"))}
		}, []string{`spec.matchResources.matchPolicy: Unsupported value: "x": supported values: "Equivalent", "Exact"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := valid()
			tc.mutate(b)
			defaults.Apply(b)
			expectErrors(t, Create(b), tc.want)
		})
	}

	mb := &admissionv1.MutatingAdmissionPolicyBinding{ObjectMeta: om("mb"), Spec: admissionv1.MutatingAdmissionPolicyBindingSpec{
		MatchResources: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{"DELETE"},
			Rule:       admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
		}}}},
	}}
	defaults.Apply(mb)
	expectErrors(t, Create(mb), []string{
		`spec.policyName: Required value`,
		`spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`,
	})
}
