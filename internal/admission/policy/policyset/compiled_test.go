package policyset

import (
	"context"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

func TestCompilePolicy(t *testing.T) {
	ignore := admissionregistrationv1.Ignore
	tests := []struct {
		name      string
		spec      Spec
		check     func(*Policy) string
		wantError string // of the first match condition
	}{
		{"defaults to Fail", Spec{}, func(p *Policy) string {
			if p.FailurePolicy != admissionregistrationv1.Fail || p.ParamKind != nil || p.Dropped {
				return "not the defaults"
			}
			return ""
		}, ""},
		{"failure policy", Spec{FailurePolicy: &ignore}, func(p *Policy) string {
			if p.FailurePolicy != ignore {
				return string(p.FailurePolicy)
			}
			return ""
		}, ""},
		{"paramKind", Spec{ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Limits"},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "params.max > 0"}}}, func(p *Policy) string {
			if p.ParamKind == nil || p.ParamKind.String() != "example.com/v1, Kind=Limits" {
				return "paramKind " + p.ParamKind.String()
			}
			return ""
		}, ""},
		{"unparsable paramKind drops the policy", Spec{ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "X"},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "true"}}}, func(p *Policy) string {
			if !p.Dropped || p.Compiler != nil || len(p.Conditions) != 0 {
				return "not dropped"
			}
			return ""
		}, ""},
		{"conditions see variables", Spec{Variables: []admissionregistrationv1.Variable{{Name: "v", Expression: "1"}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "variables.v == 1"}}}, nil, ""},
		{"conditions without params", Spec{MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "params != null"}}},
			nil, "undeclared reference to 'params'"},
		{"conditions must be bool", Spec{MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "'x'"}}},
			nil, "must evaluate to bool"},
		{"conditions may not build patches", Spec{MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "Object{} == Object{}"}}},
			nil, "undeclared reference to 'Object'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := CompilePolicy("p", tc.spec)
			if p.Name != "p" || p.Match == nil {
				t.Fatalf("%+v", p)
			}
			if tc.check != nil {
				if msg := tc.check(&p); msg != "" {
					t.Fatal(msg)
				}
			}
			if len(tc.spec.MatchConditions) == 0 || p.Dropped {
				return
			}
			err := p.Conditions[0].Err()
			if tc.wantError == "" && err != nil || tc.wantError != "" && (err == nil || !strings.Contains(err.Error(), tc.wantError)) {
				t.Fatalf("err = %v, want %q", err, tc.wantError)
			}
		})
	}
}

func TestParamsVal(t *testing.T) {
	p := CompilePolicy("p", Spec{ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}})
	if p.ParamsVal(nil) != nil {
		t.Error("no param is not nil")
	}
	in := celenv.Input{Params: p.ParamsVal(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}})}
	e := p.Compiler.Compile("params.apiVersion + '/' + params.kind + '/' + params.metadata.name", celenv.Decls{}, cel.StringType)
	v, err := p.Compiler.NewActivation(context.Background(), in).EvalValue(e, 1_000_000)
	if err != nil || v.Value() != "v1/ConfigMap/c" {
		t.Fatalf("%v, %v", v, err)
	}
}

// testHandler feeds ConfigMaps as policies and Secrets as bindings.
func testHandler(compiled *int) *Handler[*corev1.ConfigMap, *corev1.Secret, *pol, *bind] {
	return NewHandler(
		func(cm *corev1.ConfigMap) *pol { *compiled++; return newPol(cm.Name, cm.Data["dropped"] == "yes") },
		func(cm *corev1.ConfigMap) any { return cm.Data },
		func(s *corev1.Secret) *bind { return newBind(s.Name, s.StringData["policy"]) })
}

func TestHandler(t *testing.T) {
	compiled := 0
	h := testHandler(&compiled)
	cm := func(name string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
	}
	secret := func(name, policy string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"policy": policy}}
	}
	steps := []struct {
		name     string
		do       func()
		want     string
		compiled int
	}{
		{"policy and binding", func() { h.Upsert(cm("p", nil)); h.Upsert(secret("b", "p")) }, "p[b]", 1},
		{"metadata change keeps the compiled policy", func() {
			c := cm("p", nil)
			c.Labels = map[string]string{"x": "y"}
			h.Upsert(c)
		}, "p[b]", 1},
		{"spec change compiles again", func() { h.Upsert(cm("p", map[string]string{"dropped": "yes"})) }, "", 2},
		{"other objects and typed nils are ignored", func() {
			h.Upsert(&corev1.Pod{})
			h.Upsert((*corev1.ConfigMap)(nil))
			h.Delete((*corev1.Secret)(nil))
			h.Delete(&corev1.Pod{})
		}, "", 2},
		{"fixed", func() { h.Upsert(cm("p", nil)) }, "p[b]", 3},
		{"binding deleted", func() { h.Delete(secret("b", "")) }, "", 3},
		{"policy deleted", func() { h.Upsert(secret("b", "p")); h.Delete(cm("p", nil)) }, "", 3},
	}
	for _, st := range steps {
		st.do()
		if got := entries(h.Set); got != st.want || compiled != st.compiled {
			t.Errorf("%s: got %q after %d compiles, want %q after %d", st.name, got, compiled, st.want, st.compiled)
		}
	}
}
