package rest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/lifecycle"
	"github.com/portcullis/portcullis/internal/controllers/namespace"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/validation"
)

// testServer is the REST handler on a real store in a temporary directory.
type testServer struct {
	t testing.TB
	h *Handler
	s http.Handler
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	return newTestServerWith(t, objectstest.New(t), nil)
}

// newTestServerWith serves objs with the namespace lifecycle plugin and
// then chain's plugins.
func newTestServerWith(t testing.TB, objs *objects.Objects, chain *admission.Chain) *testServer {
	t.Helper()
	if chain == nil {
		chain = &admission.Chain{}
	}
	chain.Mutators = append([]admission.Mutator{lifecycle.New(objs.GetNamespace)}, chain.Mutators...)
	virtual := map[schema.GroupVersionResource]VirtualFunc{}
	for _, res := range objs.Registry().All() {
		if res.Virtual {
			virtual[res.GVR] = echo
		}
	}
	h, err := New(Config{Objects: objs, Admission: chain,
		Default: defaults.Apply, ValidateCreate: validation.Create, ValidateUpdate: validation.Update,
		Virtual: virtual})
	if err != nil {
		t.Fatal(err)
	}
	if err := namespace.New(objs, h, discardLogger()).EnsureSystem(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &request.State{Info: request.Parse(r), User: &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters"}}}
		h.ServeHTTP(w, r.WithContext(request.WithState(r.Context(), st)))
	})
	return &testServer{t: t, h: h, s: s}
}

type response struct {
	code   int
	body   string
	header http.Header
}

func (ts *testServer) do(method, path, contentType, body string) response {
	ts.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	ts.s.ServeHTTP(rec, req)
	data, _ := io.ReadAll(rec.Result().Body)
	return response{code: rec.Code, body: string(data), header: rec.Header()}
}

func (r response) status(t *testing.T) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal([]byte(r.body), &s); err != nil {
		t.Fatalf("response is not a Status: %v: %s", err, r.body)
	}
	return s
}

func TestVerbs(t *testing.T) {
	ts := newTestServer(t)
	const cm = "/api/v1/namespaces/default/configmaps"
	steps := []struct {
		name, method, path, ctype, body string
		code                            int
		contains                        string
	}{
		{"create", "POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`, 201, `"resourceVersion"`},
		{"create again", "POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, 409, `configmaps \"a\" already exists`},
		{"create yaml", "POST", cm, mediaYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml1\n", 201, `"name":"yml1"`},
		{"get", "GET", cm + "/a", "", "", 200, `"k":"v"`},
		{"get missing", "GET", cm + "/nope", "", "", 404, `configmaps \"nope\" not found`},
		{"unsupported subresource", "GET", "/api/v1/namespaces/default/pods/p/log", "", "", 405, `get is not supported on resources of kind \"pods/log\"`},
		{"unsupported connect", "POST", "/api/v1/namespaces/default/pods/p/exec", mediaJSON, "{}", 405, `create is not supported on resources of kind \"pods/exec\"`},
		{"unknown subresource", "GET", cm + "/a/nope", "", "", 404, "the server could not find the requested resource"},
		{"stale update", "PUT", cm + "/a", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}`, 409, "the object has been modified"},
		{"name mismatch", "PUT", cm + "/a", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`, 400, "does not match the name on the URL"},
		{"namespace mismatch", "POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"other"}}`, 400, "does not match the namespace"},
		{"missing namespace", "POST", "/api/v1/namespaces/nope/configmaps", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, 404, `namespaces \"nope\" not found`},
		{"wrong kind", "POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"c"}}`, 400, "cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap)"},
		{"malformed", "POST", cm, mediaJSON, `{"apiVersion":`, 400, "the object provided is unrecognized (must be of type ConfigMap)"},
		{"strict unknown field", "POST", cm + "?fieldValidation=Strict", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"bogus":1}`, 400, `unknown field \"bogus\"`},
		{"no name", "POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`, 422, "name or generateName is required"},
		{"generateName", "POST", cm, mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}}`, 201, `"name":"gen-`},
		{"merge patch", "PATCH", cm + "/a", mediaMergePatch, `{"data":{"m":"1"}}`, 200, `"m":"1"`},
		{"json patch", "PATCH", cm + "/a", mediaJSONPatch, `[{"op":"add","path":"/data/j","value":"2"}]`, 200, `"j":"2"`},
		{"json patch fails", "PATCH", cm + "/a", mediaJSONPatch, `[{"op":"test","path":"/data/j","value":"3"}]`, 422, `"message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{}`},
		{"json patch not a list", "PATCH", cm + "/a", mediaJSONPatch, `{"op":"x"}`, 400, `error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`},
		{"json patch malformed", "PATCH", cm + "/a", mediaJSONPatch, `[bad`, 400, `"message":"invalid JSON patch"`},
		{"merge patch malformed", "PATCH", cm + "/a", mediaMergePatch, `{bad`, 400, `"message":"invalid JSON patch"`},
		{"strategic patch", "PATCH", cm + "/a", mediaSMPatch, `{"data":{"s":"3"}}`, 200, `"s":"3"`},
		{"bad patch type", "PATCH", cm + "/a", "text/plain", `x`, 415, "415: Unsupported Media Type"},
		{"apply needs manager", "PATCH", cm + "/b", mediaApplyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n", 422, "fieldManager: Required value: is required for apply patch"},
		{"apply creates", "PATCH", cm + "/b?fieldManager=me", mediaApplyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: one\n", 201, `"manager":"me"`},
		{"apply conflict", "PATCH", cm + "/b?fieldManager=you", mediaApplyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: two\n", 409, "conflict"},
		{"apply force", "PATCH", cm + "/b?fieldManager=you&force=true", mediaApplyYAML, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: two\n", 200, `"x":"two"`},
		{"dry run create", "POST", cm + "?dryRun=All", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"}}`, 201, `"name":"dry"`},
		{"dry run not stored", "GET", cm + "/dry", "", "", 404, "not found"},
		{"limit below one lists everything", "GET", cm + "?limit=-1", "", "", 200, `"name":"a"`},
		{"list items carry no kind", "GET", cm + "?limit=1", "", "", 200, `"items":[{"metadata":{"name":"a"`},
		{"malformed list resourceVersion", "GET", cm + "?resourceVersion=abc", "", "", 400, `invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax`},
		{"malformed get resourceVersion", "GET", cm + "/a?resourceVersion=abc", "", "", 500, `"message":"resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax"`},
		{"patch of the uid", "PATCH", cm + "/a", mediaMergePatch, `{"metadata":{"uid":"00000000-0000-0000-0000-000000000001"}}`, 422, `metadata.uid: Invalid value: \"00000000-0000-0000-0000-000000000001\": field is immutable`},
		{"put of another uid", "PUT", cm + "/a", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"00000000-0000-0000-0000-000000000002"}}`, 409, `Operation cannot be fulfilled on configmaps \"a\": StorageError: invalid object, Code: 4, Key: /configmaps/default/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000002, UID in object meta: `},
		{"list with initial events", "GET", cm + "?sendInitialEvents=true", "", "", 422, `ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`},
		{"dry run create of an existing name", "POST", cm + "?dryRun=All", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, 409, `configmaps \"a\" already exists`},
		{"bad dry run", "POST", cm + "?dryRun=Yes", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"}}`, 422, "dryRun: Unsupported value"},
		{"delete", "DELETE", cm + "/yml1", "", "", 200, `"status":"Success"`},
		{"delete missing", "DELETE", cm + "/yml1", "", "", 404, "not found"},
		{"unknown resource", "GET", "/api/v1/widgets", "", "", 404, "could not find the requested resource"},
		{"cluster resource in namespace", "GET", "/api/v1/namespaces/default/nodes", "", "", 404, "could not find"},
		{"unknown subresource", "GET", cm + "/a/status", "", "", 404, "could not find"},
		{"bad label selector", "GET", cm + "?labelSelector=a%3D%3D%3Db", "", "", 400, `"message":"unable to parse requirement: found '=', expected: identifier"`},
		{"invalid webhook", "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", mediaJSON,
			`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"w"},"webhooks":[{"name":"bad","clientConfig":{"url":"https://example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			422, `ValidatingWebhookConfiguration.admissionregistration.k8s.io \"w\" is invalid: webhooks[0].name`},
		{"invalid role", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", mediaJSON,
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"]}]}`,
			422, `rules[0].verbs: Required value`},
		{"virtual create", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", mediaJSON, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, 201, `"kind":"SelfSubjectReview"`},
		{"virtual get", "GET", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "", "", 405, "MethodNotAllowed"},
		{"bad field selector", "GET", cm + "?fieldSelector=spec.foo%3Dbar", "", "", 400, `\"spec.foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			r := ts.do(s.method, s.path, s.ctype, s.body)
			if r.code != s.code {
				t.Fatalf("%s %s: code %d, want %d: %s", s.method, s.path, r.code, s.code, r.body)
			}
			if !strings.Contains(r.body, s.contains) {
				t.Errorf("%s %s: body lacks %q: %s", s.method, s.path, s.contains, r.body)
			}
		})
	}
}

func TestRequestTooLarge(t *testing.T) {
	ts := newTestServer(t)
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`
	r := ts.do("POST", "/api/v1/namespaces/default/configmaps", mediaJSON, big)
	if r.code != http.StatusRequestEntityTooLarge {
		t.Fatalf("code %d, want 413: %.200s", r.code, r.body)
	}
	if got := r.status(t).Message; got != "Request entity too large: limit is 3145728" {
		t.Errorf("message %q", got)
	}
}

// echo answers a virtual create with the request object.
func echo(_ context.Context, obj runtime.Object, _ bool) (runtime.Object, error) { return obj, nil }

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
