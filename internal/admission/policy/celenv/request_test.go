package celenv

import (
	"context"
	"testing"

	"github.com/google/cel-go/cel"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValues(t *testing.T) {
	a := testAttrs()
	az := &recorder{}
	v := NewValues(a, az)
	v.SetNamespace(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}})

	t.Run("only what is read", func(t *testing.T) {
		in := v.Input(UsesObject | UsesRequest)
		if in.Object == nil || in.Request == nil || in.OldObject != nil || in.Namespace != nil || in.Authorizer != nil || in.Params != nil {
			t.Fatalf("%+v", in)
		}
	})
	t.Run("converted once", func(t *testing.T) {
		first, second := v.Input(UsesObject|UsesOldObject), v.Input(UsesObject|UsesOldObject|UsesNamespace)
		if first.Object != second.Object || first.OldObject != second.OldObject {
			t.Fatal("converted again")
		}
		if v.FullNamespace() != v.FullNamespace() {
			t.Fatal("full namespace converted again")
		}
	})

	c := NewCompiler(false, nil)
	read := func(t *testing.T, in Input, expr string) any {
		t.Helper()
		r, _, err := c.NewActivation(context.Background(), in).Eval(c.Compile(expr, Decls{Authorizer: true}, cel.AnyType), 1_000_000)
		if err != nil || r.Err != nil {
			t.Fatalf("%s: %v %v", expr, err, r.Err)
		}
		return r.Val.Value()
	}
	tests := []struct {
		name string
		in   Input
		expr string
		want any
	}{
		{"typed object", v.Input(UsesObject), "object.metadata.name", "web"},
		{"typed old object", v.Input(UsesOldObject), "oldObject.metadata.labels.app", "old"},
		{"request", v.Input(UsesRequest), "request.userInfo.username", "alice"},
		{"namespaceObject without managedFields", v.Input(UsesNamespace), "has(dyn(namespaceObject).metadata.managedFields)", false},
		{"full namespace", Input{Namespace: v.FullNamespace()}, "dyn(namespaceObject).metadata.managedFields[0].manager", "m"},
		{"authorizer", v.Input(UsesAuthorizer), "authorizer.group('').resource('pods').namespace('prod').check('get').allowed()", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := read(t, tc.in, tc.expr); got != tc.want {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
	t.Run("one authorizer per request", func(t *testing.T) {
		asked := len(az.asked)
		read(t, v.Input(UsesAuthorizer|UsesRequestResourceAuthorizer), "authorizer.group('').resource('pods').namespace('prod').check('get').allowed()")
		if len(az.asked) != asked {
			t.Fatalf("asked again: %d questions", len(az.asked))
		}
	})
	t.Run("no authorizer", func(t *testing.T) {
		nv := NewValues(a, nil)
		if in := nv.Input(UsesAuthorizer); in.Authorizer != nil || in.RequestResourceAuthorizer != nil {
			t.Fatalf("%+v", in)
		}
	})
	t.Run("no namespace", func(t *testing.T) {
		nv := NewValues(a, nil)
		if got := read(t, nv.Input(UsesNamespace), "namespaceObject == null"); got != true {
			t.Fatal(got)
		}
	})
}
