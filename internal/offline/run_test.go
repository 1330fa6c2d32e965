package offline

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/server"
)

// runState is a namespace, a policy that refuses configmaps labelled
// bad=true in it, and a RoleBinding that lets alice edit there (bob has
// nothing).
const runState = `
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-bad}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!has(object.metadata.labels) || !('bad' in object.metadata.labels)"
    message: "no bad configmaps"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-bad}
spec:
  policyName: no-bad
  validationActions: [Deny]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-edit, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
`

// objects decodes YAML documents for a test.
func objects(t testing.TB, docs string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := decodeManifests("test", strings.NewReader(docs))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func object(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	objs := objects(t, doc)
	if len(objs) != 1 {
		t.Fatalf("want 1 object, got %d", len(objs))
	}
	return objs[0]
}

// startRunner starts a runner with state, closed when the test ends.
func startRunner(t testing.TB, state []*unstructured.Unstructured) *Runner {
	t.Helper()
	r, err := Start(context.Background(), Setup{Config: server.Default(), State: state})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

func configMap(name string, labels string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: team-a\n  labels: {" + labels + "}\ndata: {k: v}\n"
}

func TestRunner(t *testing.T) {
	r := startRunner(t, objects(t, runState))
	alice := &User{Name: "alice"}
	bob := &User{Name: "bob"}
	type want struct {
		Allowed bool
		Code    int
		Reason  string
		// Message must be contained in the Status message.
		Message string
		Fields  map[string]any
	}
	// In order: each row sees what the rows before it wrote.
	rows := []struct {
		name string
		req  Request
		want want
	}{{
		name: "create allowed",
		req:  Request{User: alice, Object: object(t, configMap("good", "team: a"))},
		want: want{Allowed: true, Code: http.StatusCreated, Fields: map[string]any{"metadata.labels.team": "a", "metadata.namespace": "team-a"}},
	}, {
		name: "create denied by the policy",
		req:  Request{User: alice, Object: object(t, configMap("evil", "bad: \"true\""))},
		want: want{Code: http.StatusUnprocessableEntity, Reason: "Invalid",
			Message: "ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad' denied request: no bad configmaps"},
	}, {
		name: "update with oldObject",
		req: Request{User: alice, Operation: Update, OldObject: object(t, configMap("upd", "v: \"1\"")),
			Object: object(t, configMap("upd", "v: \"2\""))},
		want: want{Allowed: true, Code: http.StatusOK, Fields: map[string]any{"metadata.labels.v": "2"}},
	}, {
		name: "update denied by the policy",
		req:  Request{User: alice, Operation: "update", Object: object(t, configMap("upd", "bad: x"))},
		want: want{Code: http.StatusUnprocessableEntity, Reason: "Invalid", Message: "no bad configmaps"},
	}, {
		name: "delete",
		req:  Request{User: alice, Operation: Delete, Object: object(t, configMap("good", ""))},
		want: want{Allowed: true, Code: http.StatusOK},
	}, {
		name: "delete by resource and name",
		req:  Request{User: alice, Operation: Delete, Resource: "configmaps", Namespace: "team-a", ObjectName: "upd"},
		want: want{Allowed: true, Code: http.StatusOK},
	}, {
		name: "dry run",
		req:  Request{User: alice, DryRun: true, Object: object(t, configMap("dry", ""))},
		want: want{Allowed: true, Code: http.StatusCreated, Fields: map[string]any{"metadata.name": "dry"}},
	}, {
		// Were the dry run stored, this would be AlreadyExists.
		name: "create after the dry run",
		req:  Request{User: alice, Object: object(t, configMap("dry", ""))},
		want: want{Allowed: true, Code: http.StatusCreated},
	}, {
		name: "create again",
		req:  Request{User: alice, Object: object(t, configMap("dry", ""))},
		want: want{Code: http.StatusConflict, Reason: "AlreadyExists"},
	}, {
		name: "forbidden by RBAC",
		req:  Request{User: bob, Object: object(t, configMap("bobs", ""))},
		want: want{Code: http.StatusForbidden, Reason: "Forbidden", Message: `User "bob" cannot create resource "configmaps"`},
	}, {
		name: "anonymous",
		req:  Request{Object: object(t, configMap("anon", ""))},
		want: want{Code: http.StatusForbidden, Reason: "Forbidden", Message: `User "system:anonymous" cannot create resource "configmaps"`},
	}}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), row.req)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := want{Allowed: res.Allowed, Code: res.Code}
			if res.Status != nil {
				got.Reason = string(res.Status.Reason)
				if strings.Contains(res.Status.Message, row.want.Message) {
					got.Message = row.want.Message
				} else {
					got.Message = res.Status.Message
				}
			}
			if len(row.want.Fields) > 0 {
				got.Fields = map[string]any{}
				for p := range row.want.Fields {
					v, _ := lookupField(res.Object, p)
					got.Fields[p] = v
				}
			}
			if diff := cmp.Diff(row.want, got); diff != "" {
				b, _ := yaml.Marshal(res)
				t.Errorf("result (-want +got):\n%s\n%s", diff, b)
			}
		})
	}
}

func TestRunnerBadRequests(t *testing.T) {
	r := startRunner(t, objects(t, runState))
	rows := []struct {
		name string
		req  Request
		// want is in the error.
		want string
	}{{
		name: "unknown kind",
		req:  Request{Object: object(t, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n")},
		want: `no resource serves kind "Gadget" of apiVersion "example.com/v1"`,
	}, {
		name: "unknown resource",
		req:  Request{Operation: Delete, Resource: "gadgets.example.com", ObjectName: "g"},
		want: `resource "gadgets.example.com" is not served`,
	}, {
		name: "update of nothing stored",
		req:  Request{Operation: Update, Object: object(t, configMap("nowhere", ""))},
		want: "update of configmaps nowhere in team-a, which is not stored",
	}, {
		name: "invalid",
		req:  Request{Operation: "PATCH", Object: object(t, configMap("x", ""))},
		want: `operation: "PATCH"`,
	}, {
		name: "delete without a name",
		req:  Request{Operation: Delete, Object: object(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: team-a}\n")},
		want: "the object has no name",
	}}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), row.req)
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("Run: want ErrBadRequest, got %v (result %+v)", err, res)
			}
			if !strings.Contains(err.Error(), row.want) {
				t.Errorf("error %q lacks %q", err, row.want)
			}
		})
	}
}
