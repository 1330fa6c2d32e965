package why

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/portcullis/portcullis/internal/request"
)

func event(t testing.TB, id, user, verb string, code int32, steps []request.Step, ann map[string]string) string {
	t.Helper()
	if ann == nil {
		ann = map[string]string{}
	}
	if steps != nil {
		b, _ := json.Marshal(steps)
		ann[request.TraceAnnotation] = string(b)
	}
	ev := auditv1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "audit.k8s.io/v1", Kind: "Event"},
		AuditID:  types.UID(id), Stage: auditv1.StageResponseComplete, Verb: verb, RequestURI: "/api/v1/namespaces/default/configmaps",
		User:           authnv1.UserInfo{Username: user},
		ObjectRef:      &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "c-" + id, APIVersion: "v1"},
		ResponseStatus: &metav1.Status{Code: code, Message: "the message of " + id},
		Annotations:    ann,
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

var denied = []request.Step{
	{Stage: request.StageAuthentication, Name: "bearer token", Outcome: "authenticated", Detail: "alice groups system:authenticated", Micros: 12},
	{Stage: request.StageAuthorization, Name: "create configmaps in default", Outcome: "allow", Detail: `RBAC: allowed by RoleBinding "rb/default" of ClusterRole "edit" to User "alice"`, Micros: 5},
	{Stage: request.StageAdmission, Name: "NamespaceLifecycle", Phase: "mutate", Outcome: "admitted", Micros: 3},
	{Stage: request.StageAdmission, Name: "ValidatingAdmissionPolicy", Phase: "validate", Outcome: "denied", Detail: "no bad names",
		Annotations: []string{"validation.policy.admission.k8s.io/validation_failure"}, Micros: 40, Parts: []request.Step{
			{Rule: "policy no-bad, binding no-bad", Outcome: "denied", Detail: "no bad names", Micros: 9},
			{Rule: "policy labels, binding labels-prod, param prod/limits", Outcome: "warned, audited", Detail: "no team label", Micros: 7},
			{Rule: "policy replicas", Outcome: "error (failurePolicy Ignore)", Detail: "failed to configure policy: no params"},
		}},
}

func testLog(t testing.TB) string {
	received := strings.Replace(event(t, "a1", "alice", "create", 201, denied[:3], nil), `"ResponseComplete"`, `"ResponseStarted"`, 1)
	return received + "not an event\n" +
		event(t, "a1", "alice", "create", 201, denied[:3], nil) +
		event(t, "a2", "alice", "create", 403, denied, map[string]string{
			"validation.policy.admission.k8s.io/validation_failure": `[{"policy":"no-bad"}]`,
			"authorization.k8s.io/decision":                         "allow",
		}) +
		event(t, "a3", "bob", "get", 200, nil, map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "kube's"})
}

func TestFind(t *testing.T) {
	log := testLog(t)
	tests := []struct {
		name string
		q    Query
		want string
		err  error
	}{
		{"by audit ID", Query{AuditID: "a1"}, "a1", nil},
		{"last match", Query{User: "alice"}, "a2", nil},
		{"denied only", Query{User: "alice", Denied: true}, "a2", nil},
		{"verb and resource", Query{Verb: "get", Resource: "configmaps"}, "a3", nil},
		{"name", Query{Name: "c-a1"}, "a1", nil},
		{"nothing", Query{User: "carol"}, "", ErrNotFound},
		{"other namespace", Query{Namespace: "kube-system"}, "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Find(strings.NewReader(log), tt.q)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if err == nil && string(ev.AuditID) != tt.want {
				t.Errorf("found %s, want %s", ev.AuditID, tt.want)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	log := testLog(t)
	ev, err := Find(strings.NewReader(log), Query{AuditID: "a2"})
	if err != nil {
		t.Fatal(err)
	}
	x, err := Explain(ev)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := x.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Request a2: create configmaps c-a2 in default by alice",
		"answered 403",
		"Authentication:\n   1. bearer token: authenticated — alice groups system:authenticated (12µs)",
		`Authorization:
   2. create configmaps in default: allow — RBAC: allowed by RoleBinding "rb/default" of ClusterRole "edit" to User "alice"`,
		"   4. ValidatingAdmissionPolicy (validate): denied — no bad names (40µs)\n" +
			"        - policy no-bad, binding no-bad: denied — no bad names (9µs)\n" +
			"        - policy labels, binding labels-prod, param prod/limits: warned, audited — no team label (7µs)\n" +
			"        - policy replicas: error (failurePolicy Ignore) — failed to configure policy: no params\n" +
			"        validation.policy.admission.k8s.io/validation_failure: [{\"policy\":\"no-bad\"}]",
		"Other audit annotations:\n  authorization.k8s.io/decision: allow",
		"Answer: 403 the message of a2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, out.String())
		}
	}

	// -o json carries the parts as recorded.
	data, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	var back Explanation
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(denied, back.Steps); diff != "" {
		t.Errorf("steps through JSON (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(data), `"parts":[{"rule":"policy no-bad, binding no-bad","outcome":"denied","detail":"no bad names","us":9}`) {
		t.Errorf("JSON lacks the parts as the trace has them:\n%s", data)
	}

	// kube-apiserver's events carry no trace: its own annotations are told.
	ev, err = Find(strings.NewReader(log), Query{AuditID: "a3"})
	if err != nil {
		t.Fatal(err)
	}
	if x, err = Explain(ev); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := x.Write(&out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); x.Traced || !strings.Contains(s, "no decision trace") || !strings.Contains(s, "authorization.k8s.io/reason: kube's") {
		t.Errorf("untraced explanation:\n%s", s)
	}

	// A damaged trace is an error that names the event.
	bad := strings.Replace(event(t, "a4", "x", "get", 200, denied, nil), `\"stage\"`, `\"stage`, 1)
	ev, err = Find(strings.NewReader(bad), Query{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Explain(ev); err == nil || !strings.Contains(err.Error(), "a4") {
		t.Errorf("damaged trace: %v", err)
	}
}

// FuzzFind: an audit log is untrusted input; no line makes Find or
// Explain panic.
func FuzzFind(f *testing.F) {
	f.Add(testLog(f))
	f.Add("{}\n")
	f.Add(`{"auditID":"x","stage":"ResponseComplete","annotations":{"trace.portcullis.dev/decision":"[{\"stage\":1}]"}}` + "\n")
	f.Fuzz(func(t *testing.T, log string) {
		ev, err := Find(strings.NewReader(log), Query{})
		if err != nil {
			return
		}
		if x, err := Explain(ev); err == nil {
			_ = x.Write(&bytes.Buffer{})
		}
	})
}
