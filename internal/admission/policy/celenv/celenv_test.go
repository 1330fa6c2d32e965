package celenv

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

var (
	podGVK  = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

func testPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod", Labels: map[string]string{"app": "web", "x-y.z/w": "1"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "a", Image: "nginx:1", Ports: []corev1.ContainerPort{{ContainerPort: 80}}},
			{Name: "b", Image: "busybox"},
		}},
	}
}

func testAttrs() *admission.Attributes {
	old := testPod()
	old.Labels = map[string]string{"app": "old"}
	return &admission.Attributes{
		Kind: podGVK, Resource: podsGVR, Subresource: "",
		RequestKind: podGVK, RequestResource: podsGVR,
		Name: "web", Namespace: "prod", Operation: admission.Update,
		UserInfo:  &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"dev"}, Extra: map[string][]string{"team": {"a", "b"}}},
		Object:    testPod(),
		OldObject: old,
		Options:   &metav1.UpdateOptions{FieldManager: "kubectl"},
		DryRun:    true,
	}
}

// recorder is an authorizer that allows alice to get pods and records
// what it was asked.
type recorder struct{ asked []authorizer.Attributes }

func (r *recorder) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.asked = append(r.asked, a)
	if a.GetUser().GetName() == "alice" && a.GetVerb() == "get" && (a.GetResource() == "pods" || a.GetPath() == "/healthz") {
		return authorizer.DecisionAllow, "ok", nil
	}
	return authorizer.DecisionNoOpinion, "no", nil
}

func testInput(a *admission.Attributes, az authorizer.UnconditionalAuthorizer, params ref.Val) Input {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	in := Input{
		Object:    ObjectVal(a.Object, a.Kind),
		OldObject: ObjectVal(a.OldObject, a.Kind),
		Request:   RequestVal(a, a.Resource, a.Kind),
		Namespace: NamespaceVal(ns),
		Params:    params,
	}
	in.Authorizer, in.RequestResourceAuthorizer = AuthorizerVals(a, az)
	return in
}

func eval(t *testing.T, c *Compiler, in Input, expr string, d Decls) (ref.Val, string) {
	t.Helper()
	e := c.Compile(expr, d, cel.AnyType)
	act := c.NewActivation(context.Background(), in)
	r, _, err := act.Eval(e, celbase.RuntimeCELCostBudget)
	if err != nil {
		return nil, err.Error()
	}
	if r.Err != nil {
		return nil, r.Err.Error()
	}
	return r.Val, ""
}

func TestVariables(t *testing.T) {
	az := &recorder{}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "prod"}, Data: map[string]string{"max": "3"}}
	in := testInput(testAttrs(), az, ParamsVal(cm, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}))
	c := NewCompiler(true, []Variable{{Name: "names", Expression: "object.spec.containers.map(c, c.name)"}})
	full := Decls{Params: true, Authorizer: true}
	tests := []struct {
		expr string
		want any
	}{
		{"object.metadata.name", "web"},
		{"object.apiVersion + '/' + object.kind", "v1/Pod"},
		{"object.metadata.labels['x-y.z/w']", "1"},
		{"object.spec.containers[0].ports[0].containerPort", int64(80)},
		{"has(object.spec.nodeName)", false},
		{"oldObject.metadata.labels.app", "old"},
		{"request.kind.kind", "Pod"},
		{"request.kind.version", "v1"},
		{"request.resource.resource", "pods"},
		{"request.requestKind.kind", "Pod"},
		{"request.requestResource.resource", "pods"},
		{"has(request.subResource)", false},
		{"request.name", "web"},
		{"request.namespace", "prod"},
		{"request.operation", "UPDATE"},
		{"request.userInfo.username", "alice"},
		{"request.userInfo.uid", "u1"},
		{"request.userInfo.groups == ['dev']", true},
		{"request.userInfo.extra['team'] == ['a', 'b']", true},
		{"request.dryRun", true},
		{"request.options.kind", "UpdateOptions"},
		{"request.options.apiVersion", "meta.k8s.io/v1"},
		{"request.options.fieldManager", "kubectl"},
		{"namespaceObject.metadata.name", "prod"},
		{"namespaceObject.metadata.labels.env", "prod"},
		{"params.data.max", "3"},
		{"params.kind", "ConfigMap"},
		{"params.apiVersion", "v1"},
		{"variables.names", []string{"a", "b"}},
		{"variables.names.size() == object.spec.containers.size()", true},
		{"authorizer.group('').resource('pods').namespace('prod').check('get').allowed()", true},
		{"authorizer.group('').resource('pods').check('delete').allowed()", false},
		{"authorizer.path('/healthz').check('get').allowed()", true},
		{"authorizer.requestResource.check('get').allowed()", true},
		{"authorizer.requestResource.check('get').reason()", "ok"},
		{"authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').allowed()", false},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			v, errText := eval(t, c, in, tc.expr, full)
			if errText != "" {
				t.Fatal(errText)
			}
			switch want := tc.want.(type) {
			case []string:
				got, err := v.ConvertToNative(sliceOfString)
				if err != nil || strings.Join(got.([]string), ",") != strings.Join(want, ",") {
					t.Fatalf("got %v (%v), want %v", v, err, want)
				}
			default:
				if v.Value() != want {
					t.Fatalf("got %v (%T), want %v", v.Value(), v.Value(), want)
				}
			}
		})
	}
	if len(az.asked) == 0 {
		t.Fatal("authorizer not asked")
	}
	rr := az.asked[len(az.asked)-3] // requestResource check('get') ... the first of the three
	if rr.GetResource() != "pods" || rr.GetNamespace() != "prod" || rr.GetName() != "web" || !rr.IsResourceRequest() {
		t.Fatalf("requestResource asked %+v", rr)
	}
}

func TestVariableErrors(t *testing.T) {
	in := testInput(testAttrs(), nil, nil)
	tests := []struct {
		name     string
		vars     []Variable
		expr     string
		decls    Decls
		wantErr  string
		wantVal  any
		wantList []string
	}{
		{name: "unknown variable", expr: "variables.nope", wantErr: "undefined field 'nope'"},
		{name: "later variable", vars: []Variable{{"a", "variables.b"}, {"b", "1"}}, expr: "variables.a", wantErr: `composited variable "a" fails to compile`},
		{name: "earlier variable", vars: []Variable{{"a", "1"}, {"b", "variables.a + 1"}}, expr: "variables.b", wantVal: int64(2)},
		{name: "failing variable unused", vars: []Variable{{"bad", "object.nope"}, {"ok", "2"}}, expr: "variables.ok", wantVal: int64(2)},
		{name: "failing variable used", vars: []Variable{{"bad", "object.nope"}}, expr: "variables.bad", wantErr: `composited variable "bad" fails to evaluate: no such key: nope`},
		{name: "redefined variable", vars: []Variable{{"a", "1"}, {"a", "'x'"}}, expr: "variables.a", wantVal: "x"},
		{name: "params undeclared", expr: "params", wantErr: "undeclared reference to 'params'"},
		{name: "authorizer unbound", expr: "authorizer.path('/').check('get').allowed()", decls: Decls{Authorizer: true}, wantErr: "no such attribute"},
		{name: "authorizer undeclared", expr: "authorizer.path('/').check('get').allowed()", wantErr: "undeclared reference to 'authorizer'"},
		{name: "namespace has no managedFields", expr: "namespaceObject.metadata.managedFields", wantErr: "undefined field 'managedFields'"},
		{name: "request has no uid", expr: "request.uid", wantErr: "undefined field 'uid'"},
		{name: "request has no object", expr: "request.object", wantErr: "undefined field 'object'"},
		{name: "no such key", expr: "object.spec.nope", wantErr: "expression 'object.spec.nope' resulted in error: no such key: nope"},
		// Schemaless values, as in kube-apiserver's admission: names are
		// verbatim and lists keep their order.
		{name: "names are not escaped", expr: "object.metadata.labels.x__dash__y__dot__z__slash__w", wantErr: "no such key: x__dash__y__dot__z__slash__w"},
		{name: "names are verbatim", expr: "object.metadata.labels['x-y.z/w'] == '1'", wantVal: true},
		{name: "lists compare in order", expr: "object.spec.containers == oldObject.spec.containers.reverse()", wantVal: false},
		{name: "lists concatenate in order", expr: "(object.spec.containers + oldObject.spec.containers).map(c, c.name)", wantList: []string{"a", "b", "a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCompiler(false, tc.vars)
			v, errText := eval(t, c, in, tc.expr, tc.decls)
			if tc.wantErr != "" {
				if !strings.Contains(errText, tc.wantErr) {
					t.Fatalf("error %q does not contain %q", errText, tc.wantErr)
				}
				return
			}
			if tc.wantList != nil {
				got, err := v.ConvertToNative(sliceOfString)
				if errText != "" || err != nil || strings.Join(got.([]string), ",") != strings.Join(tc.wantList, ",") {
					t.Fatalf("got %v, %q", v, errText)
				}
				return
			}
			if errText != "" || v.Value() != tc.wantVal {
				t.Fatalf("got %v, %q; want %v", v, errText, tc.wantVal)
			}
		})
	}
}

// TestVariablesComputedOnce checks that a variable read by several
// expressions of one activation is computed once, and again in a new
// activation.
func TestVariablesComputedOnce(t *testing.T) {
	az := &recorder{}
	a := testAttrs()
	in := testInput(a, az, nil)
	c := NewCompiler(false, []Variable{{"allowed", "authorizer.path('/healthz').check('get').allowed()"}})
	exprs := []*Expression{
		c.Compile("variables.allowed", Decls{Authorizer: true}, cel.BoolType),
		c.Compile("variables.allowed && variables.allowed", Decls{Authorizer: true}, cel.BoolType),
	}
	act := c.NewActivation(context.Background(), in)
	for _, e := range exprs {
		r, _, err := act.Eval(e, celbase.RuntimeCELCostBudget)
		if err != nil || r.Err != nil || r.Val != types.True {
			t.Fatalf("%s: %v %v %v", e.Source, r.Val, r.Err, err)
		}
	}
	if len(az.asked) != 1 {
		t.Fatalf("authorizer asked %d times", len(az.asked))
	}
	act = c.NewActivation(context.Background(), in)
	if _, _, err := act.Eval(exprs[0], celbase.RuntimeCELCostBudget); err != nil {
		t.Fatal(err)
	}
	if len(az.asked) != 2 {
		t.Fatalf("authorizer asked %d times in a new activation", len(az.asked))
	}
}

func TestCompileErrors(t *testing.T) {
	c := NewCompiler(false, nil)
	tests := []struct {
		expr string
		want []*cel.Type
		err  string
	}{
		{"object.spec ==", []*cel.Type{cel.BoolType}, "compilation failed: ERROR: <input>:1:15: Syntax error"},
		{"'a'", []*cel.Type{cel.BoolType}, "must evaluate to bool but got string"},
		{"1", []*cel.Type{cel.StringType, cel.NullType}, "must evaluate to one of [string null_type] but got int"},
		{"object.x", []*cel.Type{cel.BoolType}, "must evaluate to bool but got dyn"},
		{"nope", []*cel.Type{cel.BoolType}, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope'"},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			e := c.Compile(tc.expr, Decls{}, tc.want...)
			if e.Err() == nil || !strings.HasPrefix(e.Err().Error(), tc.err) {
				t.Fatalf("err = %v, want prefix %q", e.Err(), tc.err)
			}
			act := c.NewActivation(context.Background(), Input{})
			r, _, err := act.Eval(e, 100)
			if err != nil || r.Err == nil || !strings.HasPrefix(r.Err.Error(), "compilation error: "+tc.err) {
				t.Fatalf("evaluation = %v, %v", r.Err, err)
			}
		})
	}
}

func TestCostLimits(t *testing.T) {
	c := NewCompiler(false, nil)
	// About 2,000,000 comparisons: over the per-call limit.
	heavy := c.Compile("[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a > 0))))))", Decls{}, cel.BoolType)
	if err := heavy.Err(); err != nil {
		t.Fatal(err)
	}
	act := c.NewActivation(context.Background(), Input{})
	r, left, err := act.Eval(heavy, celbase.RuntimeCELCostBudget)
	if err != nil || r.Err == nil || !strings.Contains(r.Err.Error(), "operation cancelled: actual cost limit exceeded") {
		t.Fatalf("per-call limit: %v %v", r.Err, err)
	}
	if left >= celbase.RuntimeCELCostBudget {
		t.Fatalf("budget not charged: %d", left)
	}

	light := c.Compile("[1,2,3].all(x, x > 0)", Decls{}, cel.BoolType)
	r, _, err = act.Eval(light, 5)
	if err == nil || err.Error() != ErrOutOfBudgetDetail || r.Val != nil {
		t.Fatalf("out of budget: %v %v", r.Val, err)
	}

	// Variables are charged to the expression that reads them.
	vc := NewCompiler(false, []Variable{{"v", "[1,2,3,4,5,6,7,8,9,10].map(x, x * 2)"}})
	uses := vc.Compile("variables.v.size() > 0", Decls{}, cel.BoolType)
	vact := vc.NewActivation(context.Background(), Input{})
	if _, _, err := vact.Eval(uses, 10); err == nil || err.Error() != ErrOutOfBudgetDetail {
		t.Fatalf("variable cost not charged: %v", err)
	}

	est, err := light.EstimateCost()
	if err != nil || est.Max == 0 {
		t.Fatalf("estimate = %+v, %v", est, err)
	}
	if _, err := c.Compile("nope", Decls{}, cel.BoolType).EstimateCost(); err == nil {
		t.Fatal("estimate of a broken expression")
	}
}

func TestObjectVal(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	v := ObjectVal(dep, gvk)
	if dep.Kind != "" {
		t.Fatal("ObjectVal changed the object")
	}
	m := v.(interface{ Get(ref.Val) ref.Val })
	if got := m.Get(types.String("apiVersion")); got.Value() != "apps/v1" {
		t.Fatalf("apiVersion = %v", got)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "u"}}}
	uv := ObjectVal(u, gvk).(interface{ Get(ref.Val) ref.Val })
	if got := uv.Get(types.String("kind")); got.Value() != "Deployment" {
		t.Fatalf("kind = %v", got)
	}
	if u.GetKind() != "" {
		t.Fatal("ObjectVal changed the unstructured object")
	}
	if ObjectVal(nil, gvk) != types.NullValue || ObjectVal((*corev1.Pod)(nil), gvk) != types.NullValue {
		t.Fatal("nil is not null")
	}
}

func TestCachingAuthorizer(t *testing.T) {
	r := &recorder{}
	c := NewCachingAuthorizer(r)
	u := &user.DefaultInfo{Name: "alice"}
	a := &authorizer.AttributesRecord{User: u, Verb: "get", Resource: "pods", ResourceRequest: true}
	b := &authorizer.AttributesRecord{User: u, Verb: "list", Resource: "pods", ResourceRequest: true}
	for range 3 {
		c.Authorize(context.Background(), a)
		c.Authorize(context.Background(), b)
	}
	if len(r.asked) != 2 {
		t.Fatalf("asked %d times", len(r.asked))
	}
}

func TestUses(t *testing.T) {
	c := NewCompiler(true, []Variable{{"v", "request.name"}})
	c.Compile("object.metadata.name == params.x", Decls{Params: true}, cel.BoolType)
	c.Compile("authorizer.requestResource.check('get').allowed()", Decls{Params: true, Authorizer: true}, cel.BoolType)
	want := UsesObject | UsesParams | UsesRequest | UsesRequestResourceAuthorizer
	if got := c.Uses(); got != want {
		t.Fatalf("Uses = %b, want %b", got, want)
	}
	if c.Uses().Has(UsesNamespace) || !c.Uses().Has(UsesObject|UsesParams) {
		t.Fatal("Has")
	}
}

var sliceOfString = reflect.TypeOf([]string(nil))
