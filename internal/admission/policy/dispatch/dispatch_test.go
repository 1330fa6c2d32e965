package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
)

type pol struct{ policyset.Policy }

func (p *pol) Common() *policyset.Policy { return &p.Policy }

type bind struct{ policyset.Binding }

func (b *bind) Common() *policyset.Binding { return &b.Binding }

// podRules match pod creates.
var podRules = &admissionregistrationv1.MatchResources{
	NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
	ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
	}}},
}

var configMaps = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}

func policy(name string, mr *admissionregistrationv1.MatchResources, pk *admissionregistrationv1.ParamKind) *pol {
	return &pol{policyset.CompilePolicy(name, policyset.Spec{MatchConstraints: mr, ParamKind: pk})}
}

func binding(name, policy string, ref *admissionregistrationv1.ParamRef, mr *admissionregistrationv1.MatchResources) *bind {
	return &bind{policyset.CompileBinding(name, policy, mr, ref)}
}

// recorder is a Visitor that writes down what it is given.
type recorder struct {
	events []string
	// failOn makes Bind of this binding fail.
	failOn string
}

func (r *recorder) ConfigError(p *pol, b *policyset.Binding, err error) {
	name := p.Name
	if b != nil {
		name += "/" + b.Name
	}
	r.events = append(r.events, fmt.Sprintf("error %s: %v", name, err))
}

func (r *recorder) Bind(p *pol, b *bind, _ matching.Match, params []runtime.Object) error {
	var names []string
	for _, o := range params {
		if o == nil {
			names = append(names, "nil")
		} else {
			names = append(names, o.(*corev1.ConfigMap).Name)
		}
	}
	r.events = append(r.events, fmt.Sprintf("bind %s/%s %v", p.Name, b.Name, names))
	if b.Name == r.failOn {
		return errors.New("bind failed")
	}
	return nil
}

func TestWalk(t *testing.T) {
	store := policytest.NewStore()
	store.Add(policytest.ConfigMapGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}})
	unknownKind := &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Nope"}
	deny, allow := admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction
	other := &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}, ObjectSelector: &metav1.LabelSelector{}}
	tests := []struct {
		name     string
		objs     []any
		failOn   string
		noSource bool
		want     []string
		wantErr  string
	}{
		{"bindings in name order", []any{policy("p", podRules, nil), binding("b", "p", nil, nil), binding("a", "p", nil, nil)},
			"", false, []string{"bind p/a [nil]", "bind p/b [nil]"}, ""},
		{"a binding that does not match", []any{policy("p", podRules, nil), binding("a", "p", nil, other), binding("b", "p", nil, nil)},
			"", false, []string{"bind p/b [nil]"}, ""},
		{"policy without matchConstraints", []any{policy("p", nil, nil), binding("a", "p", nil, nil)},
			"", false, []string{"error p: policy contained no match constraints, a required field"}, ""},
		{"unknown paramKind", []any{policy("p", podRules, unknownKind), binding("a", "p", nil, nil)},
			"", false, []string{"error p: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'"}, ""},
		{"no param source", []any{policy("p", podRules, configMaps), binding("a", "p", nil, nil)},
			"", true, []string{"error p: failed to find resource referenced by paramKind: '/v1, Kind=ConfigMap'"}, ""},
		{"params", []any{policy("p", podRules, configMaps),
			binding("a", "p", &admissionregistrationv1.ParamRef{Name: "settings"}, nil),
			binding("b", "p", &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &allow}, nil),
			binding("c", "p", &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &deny}, nil),
			binding("d", "p", nil, nil)},
			"", false, []string{"bind p/a [settings]", "bind p/b []",
				"error p/c: no params found for policy binding with `Deny` parameterNotFoundAction", "bind p/d [nil]"}, ""},
		{"a failing Bind ends the walk", []any{policy("p", podRules, nil), binding("a", "p", nil, nil), binding("b", "p", nil, nil)},
			"a", false, []string{"bind p/a [nil]"}, "bind failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := policyset.New[*pol, *bind]()
			for _, o := range tc.objs {
				switch o := o.(type) {
				case *pol:
					set.PutPolicy(o.Name, o, func() *pol { return o })
				case *bind:
					set.PutBinding(o)
				}
			}
			cfg := &Config{Namespaces: store.Namespace, Params: store}
			if tc.noSource {
				cfg.Params = nil
			}
			a := policytest.PodRequest(admission.Create, policytest.Pod("default", "web", nil), nil)
			req, entries, err := Candidates(context.Background(), a, set, cfg, nil)
			if err != nil || len(entries) != 1 {
				t.Fatalf("%d entries, %v", len(entries), err)
			}
			r := &recorder{failOn: tc.failOn}
			err = Walk(context.Background(), req, cfg.Params, entries[0], r)
			if got := strings.Join(r.events, "\n"); got != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
			if fmt.Sprint(err) != fmt.Sprint(errOrNil(tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func errOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

func TestCandidates(t *testing.T) {
	set := policyset.New[*pol, *bind]()
	set.PutPolicy("p", 1, func() *pol { return policy("p", podRules, nil) })
	set.PutBinding(binding("b", "p", nil, nil))
	pods := policytest.PodRequest(admission.Create, policytest.Pod("default", "web", nil), nil)
	review := &admission.Attributes{Resource: schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}, Operation: admission.Create}
	vaps := &admission.Attributes{Resource: schema.GroupVersionResource{Group: admissionregistrationv1.GroupName, Version: "v1", Resource: "validatingadmissionpolicies"}, Operation: admission.Create}
	tests := []struct {
		name    string
		a       *admission.Attributes
		cfg     Config
		want    int
		wantErr string
	}{
		{"matching", pods, Config{}, 1, ""},
		{"reviews are exempt", review, Config{}, 0, ""},
		{"policy resources are exempt from API policies", vaps, Config{}, 0, ""},
		{"but not from static ones", vaps, Config{Static: true}, 0, ""},
		{"not ready", pods, Config{Ready: make(chan struct{})}, 0, `pods "web" is forbidden: not yet ready to handle request`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			_, entries, err := Candidates(ctx, tc.a, set, &tc.cfg, nil)
			if len(entries) != tc.want || fmt.Sprint(err) != fmt.Sprint(errOrNil(tc.wantErr)) {
				t.Fatalf("%d entries, %v", len(entries), err)
			}
			if err != nil && policytest.StatusOf(t, err).ErrStatus.Code != 403 {
				t.Fatalf("code %d", policytest.StatusOf(t, err).ErrStatus.Code)
			}
		})
	}
}

func TestExempt(t *testing.T) {
	for _, tc := range []struct {
		gr          schema.GroupResource
		api, static bool
	}{
		{schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"}, true, true},
		{schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}, true, true},
		{schema.GroupResource{Group: admissionregistrationv1.GroupName, Resource: "mutatingadmissionpolicybindings"}, true, false},
		{schema.GroupResource{Group: admissionregistrationv1.GroupName, Resource: "validatingwebhookconfigurations"}, false, false},
		{schema.GroupResource{Resource: "pods"}, false, false},
	} {
		t.Run(tc.gr.String(), func(t *testing.T) {
			if api, static := Exempt(tc.gr, false), Exempt(tc.gr, true); api != tc.api || static != tc.static {
				t.Fatalf("api %v static %v", api, static)
			}
		})
	}
}

func TestForbidden(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	tests := []struct {
		name string
		a    *admission.Attributes
		want string
	}{
		{"named", &admission.Attributes{Resource: pods, Name: "web"}, `pods "web" is forbidden: no`},
		{"from the object", &admission.Attributes{Resource: pods, Object: policytest.Pod("", "obj", nil)}, `pods "obj" is forbidden: no`},
		{"generateName", &admission.Attributes{Resource: pods, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}}, `pods "web-" is forbidden: no`},
		{"nothing", &admission.Attributes{Resource: pods, Object: (*corev1.Pod)(nil)}, `pods "Unknown" is forbidden: no`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Forbidden(tc.a, errors.New("no"))
			if err.Error() != tc.want || err.ErrStatus.Code != 403 {
				t.Fatalf("%d %q", err.ErrStatus.Code, err.Error())
			}
		})
	}
}

func TestConditionsHold(t *testing.T) {
	// Each contains of the long strings costs a fraction of the budget;
	// eight exhaust it.
	hundred := "[" + strings.TrimSuffix(strings.Repeat("0,", 100), ",") + "]"
	c := celenv.NewCompiler(false, []celenv.Variable{
		{Name: "s", Expression: hundred + ".map(i, '" + strings.Repeat("a", 100) + "').join()"},
		{Name: "t", Expression: "variables.s.substring(0, 5000) + 'b'"},
	})
	compile := func(exprs ...string) []*celenv.Expression {
		var out []*celenv.Expression
		for _, e := range exprs {
			out = append(out, c.Compile(e, celenv.Decls{Authorizer: true}, cel.BoolType))
		}
		return out
	}
	expensive := slices.Repeat([]string{"!variables.s.contains(variables.t)"}, 8)
	fail, ignore, other := admissionregistrationv1.Fail, admissionregistrationv1.Ignore, admissionregistrationv1.FailurePolicyType("Other")
	tests := []struct {
		name    string
		conds   []*celenv.Expression
		fp      admissionregistrationv1.FailurePolicyType
		want    bool
		wantErr string
	}{
		{"all true", compile("true", "object != null"), fail, true, ""},
		{"one false", compile("true", "false"), fail, false, ""},
		{"a false wins over an error", compile("object.x", "false"), fail, false, ""},
		{"error fails", compile("object.x == 1", "true"), fail, false, "expression 'object.x == 1' resulted in error: no such key: x"},
		{"error ignored", compile("object.x == 1"), ignore, false, ""},
		{"compile error fails", compile("nope"), fail, false, "compilation error"},
		{"budget fails", compile(expensive...), fail, false, celenv.ErrOutOfBudgetDetail},
		{"budget ignored", compile(expensive...), ignore, false, ""},
		{"budget with another policy goes on", compile(expensive...), other, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := celenv.Input{Object: celenv.ObjectVal(policytest.Pod("default", "web", nil), policytest.PodGVK)}
			got, err := ConditionsHold(c.NewActivation(context.Background(), in), tc.conds, tc.fp)
			if got != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("%v, %v", got, err)
			}
		})
	}
}

func TestNamespace(t *testing.T) {
	store := policytest.NewStore()
	nsGVK := schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    string
		wantErr string
	}{
		{"namespaced", policytest.PodRequest(admission.Create, policytest.Pod("default", "web", nil), nil), "default", ""},
		{"cluster-scoped", &admission.Attributes{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Name: "n"}, "", ""},
		{"a namespace itself", &admission.Attributes{Kind: nsGVK, Name: "default", Namespace: "default"}, "", ""},
		{"missing", policytest.PodRequest(admission.Create, policytest.Pod("nope", "web", nil), nil), "", `namespaces "nope" not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns, err := Namespace(matching.NewRequest(context.Background(), tc.a, store.Namespace))
			got := ""
			if ns != nil {
				got = ns.Name
			}
			if got != tc.want || fmt.Sprint(err) != fmt.Sprint(errOrNil(tc.wantErr)) {
				t.Fatalf("%q, %v", got, err)
			}
		})
	}
}
