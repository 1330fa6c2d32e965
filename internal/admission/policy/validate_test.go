package policy

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

const denyPrefix = `pods "web" is forbidden: `

// outcome is what a request's validation produced.
type outcome struct {
	err         string
	code        int32
	reason      metav1.StatusReason
	warnings    []string
	annotations map[string]string
}

func validateOutcome(t *testing.T, p *Plugin, a *admission.Attributes) outcome {
	t.Helper()
	err, st := run(p, a)
	o := outcome{warnings: st.Warnings(), annotations: st.Annotations()}
	if err != nil {
		se := statusOf(t, err)
		o.err, o.code, o.reason = se.Error(), se.ErrStatus.Code, se.ErrStatus.Reason
		if len(se.ErrStatus.Details.Causes) != 1 || !strings.HasSuffix(o.err, se.ErrStatus.Details.Causes[0].Message) {
			t.Fatalf("causes %+v do not carry the message", se.ErrStatus.Details.Causes)
		}
	}
	return o
}

func createWeb() *admission.Attributes {
	return podRequest(admission.Create, pod("default", "web", map[string]string{"app": "web"}), nil)
}

func TestMessages(t *testing.T) {
	long := strings.Repeat("x", 5*1024+1)
	tests := []struct {
		name string
		v    admissionregistrationv1.Validation
		want string
	}{
		{"default message", admissionregistrationv1.Validation{Expression: "  object.metadata.name == 'other'  "}, "failed expression: object.metadata.name == 'other'"},
		{"message", admissionregistrationv1.Validation{Expression: "false", Message: " not allowed "}, "not allowed"},
		{"messageExpression", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "'pod ' + object.metadata.name + ' refused'"}, "pod web refused"},
		{"messageExpression trimmed", admissionregistrationv1.Validation{Expression: "false", MessageExpression: "'  spaced  '"}, "spaced"},
		{"messageExpression error", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "object.nope"}, "static"},
		{"messageExpression error without message", admissionregistrationv1.Validation{Expression: "false", MessageExpression: "object.nope"}, "failed expression: false"},
		{"messageExpression empty", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "'   '"}, "static"},
		{"messageExpression multi-line", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "'a\\nb'"}, "static"},
		{"messageExpression too long", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "'" + long + "'"}, "static"},
		{"messageExpression not a string", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "1"}, "static"},
		{"messageExpression may not use the authorizer", admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "string(authorizer.path('/').check('get').allowed())"}, "static"},
		{"messageExpression with variables", admissionregistrationv1.Validation{Expression: "false", MessageExpression: "'containers: ' + string(variables.count)"}, "containers: 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(options(newEnv()), vap("p", variable("count", "object.spec.containers.size()"), withValidation(tc.v)), vapb("b", "p"))
			o := validateOutcome(t, p, createWeb())
			want := denyPrefix + "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: " + tc.want
			if o.err != want {
				t.Fatalf("got  %q\nwant %q", o.err, want)
			}
		})
	}
}

func TestReasons(t *testing.T) {
	tests := []struct {
		reason *metav1.StatusReason
		code   int32
		want   metav1.StatusReason
	}{
		{nil, 422, metav1.StatusReasonInvalid},
		{ptrTo(metav1.StatusReasonInvalid), 422, metav1.StatusReasonInvalid},
		{ptrTo(metav1.StatusReasonForbidden), 403, metav1.StatusReasonForbidden},
		{ptrTo(metav1.StatusReasonUnauthorized), 401, metav1.StatusReasonUnauthorized},
		{ptrTo(metav1.StatusReasonRequestEntityTooLarge), 413, metav1.StatusReasonRequestEntityTooLarge},
	}
	for _, tc := range tests {
		t.Run(string(tc.want), func(t *testing.T) {
			p := newPlugin(options(newEnv()), vap("p", withValidation(admissionregistrationv1.Validation{Expression: "false", Message: "no", Reason: tc.reason})), vapb("b", "p"))
			o := validateOutcome(t, p, createWeb())
			if o.code != tc.code || o.reason != tc.want {
				t.Fatalf("got %d %s, want %d %s", o.code, o.reason, tc.code, tc.want)
			}
		})
	}
	t.Run("first denial decides", func(t *testing.T) {
		p := newPlugin(options(newEnv()),
			vap("b-second", withValidation(admissionregistrationv1.Validation{Expression: "false", Message: "second", Reason: ptrTo(metav1.StatusReasonForbidden)})), vapb("x", "b-second"),
			vap("a-first", validate("true"), withValidation(admissionregistrationv1.Validation{Expression: "false", Message: "first", Reason: ptrTo(metav1.StatusReasonUnauthorized)})), vapb("y", "a-first"))
		o := validateOutcome(t, p, createWeb())
		if o.code != 401 || !strings.HasSuffix(o.err, "ValidatingAdmissionPolicy 'a-first' with binding 'y' denied request: first") {
			t.Fatalf("got %d %q", o.code, o.err)
		}
	})
	t.Run("generateName names the object", func(t *testing.T) {
		p := newPlugin(options(newEnv()), vap("p", validate("false")), vapb("b", "p"))
		obj := pod("default", "", nil)
		obj.GenerateName = "web-"
		o := validateOutcome(t, p, podRequest(admission.Create, obj, nil))
		if !strings.HasPrefix(o.err, `pods "web-" is forbidden: `) {
			t.Fatal(o.err)
		}
	})
}

func TestFailurePolicies(t *testing.T) {
	fail, ignore := failurePolicy(admissionregistrationv1.Fail), failurePolicy(admissionregistrationv1.Ignore)
	tests := []struct {
		name   string
		policy *admissionregistrationv1.ValidatingAdmissionPolicy
		want   string // "" admits
	}{
		{"runtime error fails", vap("p", fail, validate("object.spec.nope == 1")),
			"expression 'object.spec.nope == 1' resulted in error: no such key: nope"},
		{"runtime error ignored", vap("p", ignore, validate("object.spec.nope == 1")), ""},
		{"default is Fail", vap("p", validate("object.spec.nope == 1")),
			"expression 'object.spec.nope == 1' resulted in error: no such key: nope"},
		{"compile error fails", vap("p", validate("object.spec ==")), "compilation error: compilation failed: ERROR: <input>:1:15: Syntax error: mismatched input '<EOF>'"},
		{"compile error ignored", vap("p", ignore, validate("nope")), ""},
		{"budget exhausted", budgetPolicy("p"), "validation failed due to running out of cost budget, no further validation rules will be run"},
		{"wrong type fails", vap("p", validate("'yes'")), "compilation error: must evaluate to bool but got string"},
		{"later validations still run", vap("p", ignore, validate("object.nope"), validate("false")), "failed expression: false"},
		{"false match condition skips", vap("p", matchWhen("never", "false"), validate("false")), ""},
		{"true match condition applies", vap("p", matchWhen("always", "true"), matchWhen("named", "object.metadata.name == 'web'"), validate("false")), "failed expression: false"},
		{"false wins over an error", vap("p", matchWhen("err", "object.nope"), matchWhen("never", "false"), validate("false")), ""},
		{"match condition error fails", vap("p", matchWhen("err", "object.nope == 'x'"), validate("true")),
			"expression 'object.nope == 'x'' resulted in error: no such key: nope"},
		{"match condition errors are joined", vap("p", matchWhen("a", "object.nope == 'x'"), matchWhen("b", "object.nope2 == 'y'"), validate("true")),
			"[expression 'object.nope == 'x'' resulted in error: no such key: nope, expression 'object.nope2 == 'y'' resulted in error: no such key: nope2]"},
		{"match condition error ignored", vap("p", ignore, matchWhen("err", "object.nope == 'x'"), validate("false")), ""},
		{"match conditions have no namespaceObject", vap("p", matchWhen("ns", "namespaceObject == null"), validate("false")), "failed expression: false"},
		{"unrecognized failure policy", vap("p", failurePolicy("Sometimes"), paramKind("v1", "Nope"), validate("false")),
			"unrecognized failure policy: 'Sometimes'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(options(newEnv()), tc.policy, vapb("b", "p"))
			o := validateOutcome(t, p, createWeb())
			if tc.want == "" {
				if o.err != "" {
					t.Fatalf("denied: %s", o.err)
				}
				return
			}
			prefix := denyPrefix + "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
			if strings.HasPrefix(tc.want, "unrecognized") {
				prefix = denyPrefix + "ValidatingAdmissionPolicy 'p' denied request: "
			}
			if !strings.HasPrefix(o.err, prefix+tc.want) {
				t.Fatalf("got  %q\nwant %q", o.err, prefix+tc.want)
			}
			if o.code != 422 {
				t.Fatalf("code %d", o.code)
			}
		})
	}
}

func TestValidationActions(t *testing.T) {
	deny, warn, audit := admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit
	failing := vap("p", withValidation(admissionregistrationv1.Validation{Expression: "true"}), withValidation(admissionregistrationv1.Validation{Expression: "false", Message: "no web"}))
	erring := vap("p", validate("object.nope == 1"))
	const msg = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no web"
	const warning = "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': no web"
	tests := []struct {
		name     string
		policy   *admissionregistrationv1.ValidatingAdmissionPolicy
		actions  []admissionregistrationv1.ValidationAction
		err      string
		warnings []string
		audit    string
	}{
		{"deny", failing, []admissionregistrationv1.ValidationAction{deny}, denyPrefix + msg, nil, ""},
		{"warn", failing, []admissionregistrationv1.ValidationAction{warn}, "", []string{warning}, ""},
		{"audit", failing, []admissionregistrationv1.ValidationAction{audit}, "", nil,
			`[{"message":"no web","policy":"p","binding":"b","expressionIndex":1,"validationActions":["Audit"]}]`},
		{"warn and audit", failing, []admissionregistrationv1.ValidationAction{warn, audit}, "", []string{warning},
			`[{"message":"no web","policy":"p","binding":"b","expressionIndex":1,"validationActions":["Warn","Audit"]}]`},
		{"deny and audit", failing, []admissionregistrationv1.ValidationAction{deny, audit}, denyPrefix + msg, nil,
			`[{"message":"no web","policy":"p","binding":"b","expressionIndex":1,"validationActions":["Deny","Audit"]}]`},
		{"errors follow the actions", erring, []admissionregistrationv1.ValidationAction{warn}, "",
			[]string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': expression 'object.nope == 1' resulted in error: no such key: nope"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(options(newEnv()), tc.policy, vapb("b", "p", actions(tc.actions...)))
			o := validateOutcome(t, p, createWeb())
			if o.err != tc.err || strings.Join(o.warnings, "|") != strings.Join(tc.warnings, "|") || o.annotations[ValidationFailureAnnotation] != tc.audit {
				t.Fatalf("got err %q warnings %q audit %q", o.err, o.warnings, o.annotations[ValidationFailureAnnotation])
			}
		})
	}
	t.Run("failures of several bindings are capped", func(t *testing.T) {
		objs := []runtime.Object{failing}
		for i := range 60 {
			objs = append(objs, vapb("b"+string(rune('A'+i)), "p", actions(audit)))
		}
		p := newPlugin(options(newEnv()), objs...)
		o := validateOutcome(t, p, createWeb())
		var failures []ValidationFailure
		if err := json.Unmarshal([]byte(o.annotations[ValidationFailureAnnotation]), &failures); err != nil {
			t.Fatal(err)
		}
		if len(failures) != maxValidationFailures {
			t.Fatalf("%d failures", len(failures))
		}
	})
}

func TestAuditAnnotations(t *testing.T) {
	long := strings.Repeat("v", 11*1024)
	tests := []struct {
		name    string
		opts    []policyOpt
		want    map[string]string
		wantErr string
	}{
		{"published", []policyOpt{annotate("who", "request.userInfo.username")}, map[string]string{"p/who": "alice"}, ""},
		{"trimmed", []policyOpt{annotate("pad", "'  x  '")}, map[string]string{"p/pad": "x"}, ""},
		{"null skipped", []policyOpt{annotate("none", "null")}, nil, ""},
		{"empty skipped", []policyOpt{annotate("empty", "'  '")}, nil, ""},
		{"conditional", []policyOpt{annotate("cond", "object.metadata.name == 'web' ? 'web' : ''"), annotate("skip", "object.metadata.name == 'web' ? '' : 'web'")}, map[string]string{"p/cond": "web"}, ""},
		{"untyped values do not compile", []policyOpt{annotate("name", "object.metadata.name")}, nil,
			"compilation error: must evaluate to one of [string null_type] but got dyn"},
		{"typed", []policyOpt{annotate("name", "string(object.metadata.name)")}, map[string]string{"p/name": "web"}, ""},
		{"capped", []policyOpt{annotate("long", "'"+long+"'")}, map[string]string{"p/long": long[:10*1024]}, ""},
		{"error denies", []policyOpt{annotate("n", "string(object.nope)")}, nil,
			"expression 'string(object.nope)' resulted in error: no such key: nope"},
		{"error ignored", []policyOpt{failurePolicy(admissionregistrationv1.Ignore), annotate("n", "string(object.nope)"), annotate("ok", "'yes'")}, map[string]string{"p/ok": "yes"}, ""},
		{"with validations", []policyOpt{validate("true"), annotate("a", "'b'")}, map[string]string{"p/a": "b"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Audit annotations are published whatever the actions.
			p := newPlugin(options(newEnv()), vap("p", tc.opts...), vapb("b", "p", actions(admissionregistrationv1.Warn)))
			o := validateOutcome(t, p, createWeb())
			if tc.wantErr != "" {
				if o.err != denyPrefix+"ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "+tc.wantErr {
					t.Fatalf("err %q", o.err)
				}
				return
			}
			if o.err != "" || len(o.annotations) != len(tc.want) {
				t.Fatalf("err %q annotations %v", o.err, o.annotations)
			}
			for k, v := range tc.want {
				if o.annotations[k] != v {
					t.Fatalf("%s = %q, want %q", k, o.annotations[k], v)
				}
			}
		})
	}
	t.Run("duplicates dropped, distinct values joined", func(t *testing.T) {
		e := newEnv()
		for _, n := range []string{"one", "two", "three"} {
			e.Add(configMapGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: n, Labels: map[string]string{"use": "yes"}}, Data: map[string]string{"v": strings.TrimSuffix(n, "ree")}})
		}
		p := newPlugin(options(e),
			vap("p", paramKind("v1", "ConfigMap"), annotate("v", "string(params.data.v)"), annotate("same", "'x'")),
			vapb("b1", "p", paramRef(admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"use": "yes"}}})),
			vapb("b2", "p", paramRef(admissionregistrationv1.ParamRef{Name: "one"})))
		o := validateOutcome(t, p, createWeb())
		if o.err != "" || o.annotations["p/v"] != "one, th, two" || o.annotations["p/same"] != "x" {
			t.Fatalf("err %q annotations %v", o.err, o.annotations)
		}
	})
}

func TestParams(t *testing.T) {
	e := newEnv()
	e.AddNamespace("other", nil)
	e.Add(configMapGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "limits", Labels: map[string]string{"kind": "limits"}}, Data: map[string]string{"max": "1"}})
	e.Add(configMapGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "strict", Labels: map[string]string{"kind": "limits"}}, Data: map[string]string{"max": "0"}})
	e.Add(configMapGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "limits"}, Data: map[string]string{"max": "0"}})
	e.Add(clusterParamGVK, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Limits", "metadata": map[string]any{"name": "global"}, "max": int64(0)}})
	allow, deny := admissionregistrationv1.AllowAction, admissionregistrationv1.DenyAction
	maxContainers := withValidation(admissionregistrationv1.Validation{
		Expression:        "object.spec.containers.size() <= int(params.data.max)",
		MessageExpression: "'at most ' + params.data.max + ' containers (' + params.metadata.name + ')'",
	})
	const prefix = denyPrefix + "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
	tests := []struct {
		name   string
		policy *admissionregistrationv1.ValidatingAdmissionPolicy
		ref    *admissionregistrationv1.ParamRef
		want   string
	}{
		{"by name", vap("p", paramKind("v1", "ConfigMap"), maxContainers), &admissionregistrationv1.ParamRef{Name: "limits"}, ""},
		{"by name denies", vap("p", paramKind("v1", "ConfigMap"), maxContainers), &admissionregistrationv1.ParamRef{Name: "strict"}, prefix + "at most 0 containers (strict)"},
		{"in another namespace", vap("p", paramKind("v1", "ConfigMap"), maxContainers), &admissionregistrationv1.ParamRef{Name: "limits", Namespace: "other"}, prefix + "at most 0 containers (limits)"},
		{"each selected param", vap("p", paramKind("v1", "ConfigMap"), maxContainers), &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"kind": "limits"}}}, prefix + "at most 0 containers (strict)"},
		{"not found, allowed", vap("p", paramKind("v1", "ConfigMap"), maxContainers), &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &allow}, ""},
		{"not found, denied", vap("p", paramKind("v1", "ConfigMap"), maxContainers), &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &deny},
			prefix + "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"},
		{"no paramRef means null params", vap("p", paramKind("v1", "ConfigMap"), validate("params != null")), nil, prefix + "failed expression: params != null"},
		{"typed params get apiVersion and kind", vap("p", paramKind("v1", "ConfigMap"), validate("params.apiVersion == 'v1' && params.kind == 'ConfigMap' && false")), &admissionregistrationv1.ParamRef{Name: "limits"},
			prefix + "failed expression: params.apiVersion == 'v1' && params.kind == 'ConfigMap' && false"},
		{"cluster-scoped params", vap("p", paramKind("example.com/v1", "Limits"), withValidation(admissionregistrationv1.Validation{Expression: "object.spec.containers.size() <= params.max", MessageExpression: "params.kind + '/' + params.metadata.name"})),
			&admissionregistrationv1.ParamRef{Name: "global"}, prefix + "Limits/global"},
		{"unknown paramKind", vap("p", paramKind("example.com/v1", "Nope"), validate("true")), &admissionregistrationv1.ParamRef{Name: "x"},
			denyPrefix + "ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'"},
		{"unknown paramKind ignored", vap("p", failurePolicy(admissionregistrationv1.Ignore), paramKind("example.com/v1", "Nope"), validate("false")), &admissionregistrationv1.ParamRef{Name: "x"}, ""},
		{"unparsable paramKind drops the policy", vap("p", paramKind("a/b/c", "Nope"), validate("false")), &admissionregistrationv1.ParamRef{Name: "x"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []bindingOpt
			if tc.ref != nil {
				opts = append(opts, paramRef(*tc.ref))
			}
			p := newPlugin(options(e), tc.policy, vapb("b", "p", opts...))
			o := validateOutcome(t, p, createWeb())
			if o.err != tc.want {
				t.Fatalf("got  %q\nwant %q", o.err, tc.want)
			}
		})
	}
	t.Run("namespaced params for a cluster-scoped request", func(t *testing.T) {
		p := newPlugin(options(e),
			vap("p", paramKind("v1", "ConfigMap"), validate("true"), constraints(&admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"nodes"}}}}}})),
			vapb("b", "p", paramRef(admissionregistrationv1.ParamRef{Name: "limits"})))
		a := &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"},
			Name: "n1", Operation: admission.Create, Object: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}}
		o := validateOutcome(t, p, a)
		if o.err != `nodes "n1" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources` {
			t.Fatal(o.err)
		}
	})
}

func TestConfigurationErrors(t *testing.T) {
	prod := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	podRules := []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}
	inGone := podRequest(admission.Create, pod("gone", "web", nil), nil)
	t.Run("policy namespace selector on a missing namespace", func(t *testing.T) {
		p := newPlugin(options(newEnv()), vap("p", validate("true"), constraints(&admissionregistrationv1.MatchResources{ResourceRules: podRules, NamespaceSelector: prod})), vapb("b", "p"))
		o := validateOutcome(t, p, inGone)
		if o.err != `pods "web" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: namespaces "gone" not found` || o.code != 422 {
			t.Fatal(o.err, o.code)
		}
	})
	t.Run("binding namespace selector on a missing namespace", func(t *testing.T) {
		p := newPlugin(options(newEnv()), vap("p", validate("true")), vapb("b", "p", bindingResources(&admissionregistrationv1.MatchResources{NamespaceSelector: prod})))
		o := validateOutcome(t, p, inGone)
		if o.err != `pods "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: namespaces "gone" not found` {
			t.Fatal(o.err)
		}
	})
	t.Run("namespaceObject of a missing namespace fails the request", func(t *testing.T) {
		p := newPlugin(options(newEnv()), vap("p", validate("true")), vapb("b", "p"))
		err, _ := run(p, inGone)
		if !apierrors.IsNotFound(err) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("binding of a missing policy is ignored", func(t *testing.T) {
		p := newPlugin(options(newEnv()), vapb("b", "nope"))
		if o := validateOutcome(t, p, createWeb()); o.err != "" {
			t.Fatal(o.err)
		}
	})
	t.Run("policy without bindings is not evaluated", func(t *testing.T) {
		p := newPlugin(options(newEnv()), vap("p", validate("false")))
		if o := validateOutcome(t, p, createWeb()); o.err != "" {
			t.Fatal(o.err)
		}
	})
	t.Run("policy without matchConstraints", func(t *testing.T) {
		pol := vap("p", validate("true"))
		pol.Spec.MatchConstraints = nil
		p := newPlugin(options(newEnv()), pol, vapb("b", "p"))
		o := validateOutcome(t, p, createWeb())
		if o.err != denyPrefix+"ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: policy contained no match constraints, a required field" {
			t.Fatal(o.err)
		}
	})
}

func TestMatching(t *testing.T) {
	e := newEnv()
	e.AddNamespace("prod", map[string]string{"env": "prod"})
	p := newPlugin(options(e),
		vap("pods-only", validate("false")), vapb("all", "pods-only",
			bindingResources(&admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}})),
		vap("labelled", validate("false"), constraints(&admissionregistrationv1.MatchResources{
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"guard": "yes"}},
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"CREATE"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}},
		})), vapb("guarded", "labelled"),
	)
	tests := []struct {
		name   string
		a      *admission.Attributes
		denier string
	}{
		{"pod elsewhere", podRequest(admission.Create, pod("default", "web", nil), nil), ""},
		{"pod in prod", podRequest(admission.Create, pod("prod", "web", nil), nil), "pods-only"},
		{"guarded pod", podRequest(admission.Create, pod("default", "web", map[string]string{"guard": "yes"}), nil), "labelled"},
		{"guarded pod update", podRequest(admission.Update, pod("default", "web", map[string]string{"guard": "yes"}), pod("default", "web", nil)), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := validateOutcome(t, p, tc.a)
			if (tc.denier == "") != (o.err == "") || (tc.denier != "" && !strings.Contains(o.err, "'"+tc.denier+"'")) {
				t.Fatalf("err %q, want denial by %q", o.err, tc.denier)
			}
		})
	}
}

func TestNamespaceObject(t *testing.T) {
	p := newPlugin(options(newEnv()),
		vap("p", withValidation(admissionregistrationv1.Validation{Expression: "false", MessageExpression: "namespaceObject == null ? 'none' : namespaceObject.metadata.name"}),
			constraints(&admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}})),
		vapb("b", "p"))
	tests := []struct {
		name string
		a    *admission.Attributes
		want string
	}{
		{"namespaced", createWeb(), "default"},
		{"cluster-scoped", &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"},
			Name: "n", Operation: admission.Create, Object: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}}, "none"},
		{"namespace itself", &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
			Name: "default", Namespace: "default", Operation: admission.Update, Object: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}, "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := validateOutcome(t, p, tc.a)
			if !strings.HasSuffix(o.err, "denied request: "+tc.want) {
				t.Fatal(o.err)
			}
		})
	}
}

func TestExemptResources(t *testing.T) {
	everything := constraints(&admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}}}})
	req := func(group, resource string) *admission.Attributes {
		return &admission.Attributes{Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}, Name: "x", Operation: admission.Create,
			Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}}
	}
	tests := []struct {
		group, resource string
		api, static     bool // denied by the API plugin, by the static one
	}{
		{"authentication.k8s.io", "tokenreviews", false, false},
		{"authentication.k8s.io", "selfsubjectreviews", false, false},
		{"authorization.k8s.io", "subjectaccessreviews", false, false},
		{"authorization.k8s.io", "selfsubjectaccessreviews", false, false},
		{"authorization.k8s.io", "selfsubjectrulesreviews", false, false},
		{"authorization.k8s.io", "localsubjectaccessreviews", false, false},
		{"admissionregistration.k8s.io", "validatingadmissionpolicies", false, true},
		{"admissionregistration.k8s.io", "validatingadmissionpolicybindings", false, true},
		{"admissionregistration.k8s.io", "mutatingadmissionpolicies", false, true},
		{"admissionregistration.k8s.io", "mutatingadmissionpolicybindings", false, true},
		{"admissionregistration.k8s.io", "validatingwebhookconfigurations", true, true},
		{"", "configmaps", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.resource, func(t *testing.T) {
			for _, static := range []bool{false, true} {
				opts := options(newEnv())
				opts.Static = static
				p := newPlugin(opts, vap("p", validate("false"), everything), vapb("b", "p"))
				err, _ := run(p, req(tc.group, tc.resource))
				want := tc.api
				if static {
					want = tc.static
				}
				if (err != nil) != want {
					t.Fatalf("static=%v: err = %v, want denial %v", static, err, want)
				}
			}
		})
	}
}

func TestProtectAdmissionResourcesExample(t *testing.T) {
	opts := options(newEnv())
	opts.Static = true
	p := newPlugin(opts, loadYAML(t, "protect-admission-resources.yaml")...)
	gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	protected := vap("guarded")
	protected.Labels = map[string]string{"platform.example.com/protected": "true"}
	a := &admission.Attributes{Kind: schema.GroupVersionKind{Group: gvr.Group, Version: "v1", Kind: "ValidatingAdmissionPolicy"}, Resource: gvr,
		Name: "guarded", Operation: admission.Delete, OldObject: protected}
	o := validateOutcome(t, p, a)
	if o.err != `validatingadmissionpolicies.admissionregistration.k8s.io "guarded" is forbidden: ValidatingAdmissionPolicy 'example-protect-admission-resources.static.k8s.io' with binding 'example-protect-admission-resources-binding.static.k8s.io' denied request: Protected admission resources cannot be modified or deleted` {
		t.Fatal(o.err)
	}
	a.OldObject = vap("free")
	if o := validateOutcome(t, p, a); o.err != "" {
		t.Fatal(o.err)
	}
}

func TestLoading(t *testing.T) {
	p := newPlugin(options(newEnv()))
	a := createWeb()
	denied := func() bool { err, _ := run(p, a); return err != nil }
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"binding first", func() { p.Upsert(vapb("b", "p")) }, false},
		{"then policy", func() { p.Upsert(vap("p", validate("false"))) }, true},
		{"policy fixed", func() { p.Upsert(vap("p", validate("true"))) }, false},
		{"policy broken again", func() { p.Upsert(vap("p", validate("false"))) }, true},
		{"binding narrowed", func() {
			p.Upsert(vapb("b", "p", bindingResources(&admissionregistrationv1.MatchResources{ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}})))
		}, false},
		{"binding widened", func() { p.Upsert(vapb("b", "p")) }, true},
		{"binding deleted", func() { p.Delete(vapb("b", "p")) }, false},
		{"binding back", func() { p.Upsert(vapb("b", "p")) }, true},
		{"policy deleted", func() { p.Delete(vap("p")) }, false},
		{"other objects ignored", func() { p.Upsert(&corev1.Pod{}); p.Delete(&corev1.Pod{}) }, false},
	}
	for _, s := range steps {
		s.do()
		if got := denied(); got != s.want {
			t.Fatalf("%s: denied = %v, want %v", s.name, got, s.want)
		}
	}
	t.Run("status changes keep the compiled policy", func(t *testing.T) {
		pol := vap("p", validate("false"))
		p.Upsert(pol)
		before := mustPolicy(t, p, "p").validations[0].expr
		cp := pol.DeepCopy()
		cp.Status.ObservedGeneration = 1
		p.Upsert(cp)
		if mustPolicy(t, p, "p").validations[0].expr != before {
			t.Fatal("recompiled on a status change")
		}
	})
}

func TestReady(t *testing.T) {
	ready := make(chan struct{})
	opts := options(newEnv())
	opts.Ready = ready
	p := newPlugin(opts, vap("p", validate("true")), vapb("b", "p"))
	ctx, cancel := context.WithTimeout(request.WithState(context.Background(), &request.State{}), 50*time.Millisecond)
	defer cancel()
	err := p.Validate(ctx, createWeb())
	se := statusOf(t, err)
	if se.ErrStatus.Code != 403 || se.Error() != `pods "web" is forbidden: not yet ready to handle request` {
		t.Fatalf("%d %q", se.ErrStatus.Code, se.Error())
	}
	close(ready)
	if err := p.Validate(context.Background(), createWeb()); err != nil {
		t.Fatal(err)
	}
}

func mustPolicy(t *testing.T, p *Plugin, name string) *compiledPolicy {
	t.Helper()
	c, ok := p.loader.Set.Policy(name)
	if !ok {
		t.Fatalf("policy %s not loaded", name)
	}
	return c
}
