package offline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRequestsFrom(t *testing.T) {
	alice := &User{Name: "alice", Groups: []string{"dev"}}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n"
	rows := []struct {
		name string
		docs string
		def  Request
		// want are the requests, without Object and OldObject, which
		// objectNames checks.
		want        []Request
		objectNames []string
		wantErr     string
	}{{
		name:        "any object is a create with the defaults",
		docs:        cm,
		def:         Request{User: alice, DryRun: true, Operation: Update},
		want:        []Request{{User: alice, DryRun: true, Operation: Update}},
		objectNames: []string{"plain"},
	}, {
		name: "an AdmissionRequest as it is, named by metadata.name",
		docs: `apiVersion: portcullis.dev/v1alpha1
kind: AdmissionRequest
metadata: {name: evict-web}
operation: CREATE
subresource: eviction
resource: pods
namespace: shop
objectName: web
user: {name: bob, uid: "7", groups: [ops], extra: {scopes: [a, b]}}
query: {fieldManager: me}
object: {apiVersion: policy/v1, kind: Eviction, metadata: {name: web}}
`,
		def: Request{User: alice, DryRun: true},
		want: []Request{{Name: "evict-web", Operation: Create, Subresource: "eviction", Resource: "pods", Namespace: "shop", ObjectName: "web",
			User: &User{Name: "bob", UID: "7", Groups: []string{"ops"}, Extra: map[string][]string{"scopes": {"a", "b"}}}, Query: map[string]string{"fieldManager": "me"}}},
		objectNames: []string{"web"},
	}, {
		name: "its own name wins over metadata.name; the default user when it names none",
		docs: "apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: meta}\nname: own\noperation: DELETE\nresource: configmaps\nobjectName: x\n",
		def:  Request{User: alice},
		want: []Request{{Name: "own", Operation: Delete, Resource: "configmaps", ObjectName: "x", User: alice}},
	}, {
		name: "a token of its own keeps the default user out",
		docs: "apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: t}\ntoken: secret\nresource: configmaps\nobjectName: x\n",
		def:  Request{User: alice},
		want: []Request{{Name: "t", Token: "secret", Resource: "configmaps", ObjectName: "x"}},
	}, {
		name: "the default token",
		docs: "apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: t}\nresource: configmaps\nobjectName: x\n",
		def:  Request{Token: "def"},
		want: []Request{{Name: "t", Token: "def", Resource: "configmaps", ObjectName: "x"}},
	}, {
		name: "other versions of the kind name are objects",
		docs: "apiVersion: portcullis.dev/v1\nkind: AdmissionRequest\nmetadata: {name: not-ours}\n",
		want: []Request{{}}, objectNames: []string{"not-ours"},
	}, {
		name:    "unknown fields are an error naming the request",
		docs:    "apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: typo}\noperaton: DELETE\n",
		wantErr: `AdmissionRequest "typo": `,
	}, {
		name:    "a field of the wrong type",
		docs:    "apiVersion: portcullis.dev/v1alpha1\nkind: AdmissionRequest\nmetadata: {name: wrong}\ndryRun: maybe\n",
		wantErr: `AdmissionRequest "wrong": `,
	}}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			got, err := RequestsFrom(objects(t, row.docs), row.def)
			if row.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), row.wantErr) {
					t.Fatalf("want an error containing %q, got %v", row.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var objNames []string
			for i := range got {
				if got[i].Object != nil {
					objNames = append(objNames, got[i].Object.GetName())
				}
				got[i].Object = nil
			}
			if diff := cmp.Diff(row.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(row.objectNames, objNames); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestValidate(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	rows := []struct {
		name string
		req  Request
		// want are the problems reported, in order; none: valid.
		want []string
	}{
		{name: "a create of an object", req: Request{Object: obj}},
		{name: "operations in any case", req: Request{Operation: "delete", Object: obj}},
		{name: "an update with oldObject", req: Request{Operation: Update, Object: obj, OldObject: obj}},
		{name: "resource and objectName instead of an object", req: Request{Operation: Delete, Resource: "pods", ObjectName: "web"}},
		{name: "a user", req: Request{Object: obj, User: &User{Name: "alice"}}},
		{name: "a token", req: Request{Object: obj, Token: "t"}},
		{name: "unknown operation", req: Request{Operation: "PATCH", Object: obj},
			want: []string{`operation: "PATCH": want CREATE, UPDATE, DELETE or CONNECT`}},
		{name: "nothing to send", req: Request{}, want: []string{"object: required (or resource and objectName)"}},
		{name: "resource without objectName", req: Request{Resource: "pods"}, want: []string{"object: required (or resource and objectName)"}},
		{name: "oldObject of a create", req: Request{Object: obj, OldObject: obj}, want: []string{"oldObject: only for UPDATE"}},
		{name: "user without a name", req: Request{Object: obj, User: &User{Groups: []string{"g"}}}, want: []string{"user.name: required"}},
		{name: "user and token", req: Request{Object: obj, User: &User{Name: "a"}, Token: "t"}, want: []string{"user and token: give one"}},
		{name: "every problem at once", req: Request{Operation: "GET", OldObject: obj, User: &User{}, Token: "t"}, want: []string{
			`operation: "GET": want CREATE, UPDATE, DELETE or CONNECT`,
			"object: required (or resource and objectName)",
			"oldObject: only for UPDATE",
			"user.name: required",
			"user and token: give one",
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var got []string
			if err := row.req.Validate(); err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(row.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
