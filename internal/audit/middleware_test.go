package audit

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

// memSink keeps copies of the events it is given.
type memSink struct {
	mu     sync.Mutex
	events []*auditv1.Event
	err    error
}

func (s *memSink) WriteEvents(events ...*auditv1.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	for _, ev := range events {
		s.events = append(s.events, ev.DeepCopy())
	}
	return nil
}

func (s *memSink) stages() []auditv1.Stage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []auditv1.Stage
	for _, ev := range s.events {
		out = append(out, ev.Stage)
	}
	return out
}

// ignoreTimes drops what changes from run to run.
var ignoreTimes = cmpopts.IgnoreFields(auditv1.Event{}, "RequestReceivedTimestamp", "StageTimestamp")

const policyHead = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"

// serve runs one request through Middleware with the given state.
func serve(t *testing.T, policy string, sink Sink, st *request.State, req *http.Request, h http.HandlerFunc) *httptest.ResponseRecorder {
	t.Helper()
	if st != nil {
		req = req.WithContext(request.WithState(req.Context(), st))
	}
	w := httptest.NewRecorder()
	Middleware(h, sink, mustParse(t, policyHead+policy)).ServeHTTP(w, req)
	return w
}

func alice() user.Info {
	return &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"admins", "system:authenticated"}, Extra: map[string][]string{"scope": {"a", "b"}}}
}

var aliceInfo = authnv1.UserInfo{Username: "alice", UID: "u-1", Groups: []string{"admins", "system:authenticated"}, Extra: map[string]authnv1.ExtraValue{"scope": {"a", "b"}}}

func TestMiddlewareMetadata(t *testing.T) {
	sink := &memSink{}
	st := &request.State{Info: resourceInfo("get", "", "pods", "", "default", "web"), User: alice(), AuditID: "a-1"}
	st.AddAnnotation("authorization.k8s.io/decision", "allow")
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods/web?timeout=5s", nil)
	req.RemoteAddr = "192.0.2.7:4444"
	req.Header.Set("X-Forwarded-For", "203.0.113.1, 10.0.0.2")
	req.Header.Set("User-Agent", "kubectl/v1.37.2")
	w := serve(t, "rules:\n- level: Metadata\n", sink, st, req, func(w http.ResponseWriter, r *http.Request) {
		if RecorderFrom(r.Context()) == nil {
			t.Error("no recorder in the handler's context")
		}
		RecorderFrom(r.Context()).SetRequestObject([]byte(`{"metadata":{"name":"web"}}`))
		RecorderFrom(r.Context()).SetResponseObject([]byte(`{"kind":"Pod"}`))
		request.StateFrom(r.Context()).AddAnnotation("pod-security.kubernetes.io/enforce-policy", "restricted:latest")
		w.Write([]byte(`{"kind":"Pod"}`))
	})
	if w.Code != http.StatusOK {
		t.Fatalf("code = %d", w.Code)
	}
	base := auditv1.Event{
		Level:      auditv1.LevelMetadata,
		AuditID:    "a-1",
		RequestURI: "/api/v1/namespaces/default/pods/web?timeout=5s",
		Verb:       "get",
		User:       aliceInfo,
		SourceIPs:  []string{"203.0.113.1", "10.0.0.2", "192.0.2.7"},
		UserAgent:  "kubectl/v1.37.2",
		ObjectRef:  &auditv1.ObjectReference{Resource: "pods", Namespace: "default", Name: "web", APIVersion: "v1"},
	}
	received := base
	received.Stage = auditv1.StageRequestReceived
	received.Annotations = map[string]string{"authorization.k8s.io/decision": "allow"}
	complete := base
	complete.Stage = auditv1.StageResponseComplete
	complete.ResponseStatus = &metav1.Status{Code: 200}
	complete.Annotations = map[string]string{
		"authorization.k8s.io/decision":             "allow",
		"pod-security.kubernetes.io/enforce-policy": "restricted:latest",
	}
	if diff := cmp.Diff([]*auditv1.Event{&received, &complete}, sink.events, ignoreTimes); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	ev := sink.events[1]
	if ev.StageTimestamp.Before(&ev.RequestReceivedTimestamp) || sink.events[0].StageTimestamp != sink.events[0].RequestReceivedTimestamp {
		t.Errorf("timestamps: received %v, stages %v and %v", ev.RequestReceivedTimestamp, sink.events[0].StageTimestamp, ev.StageTimestamp)
	}
}

func TestMiddlewareBodies(t *testing.T) {
	const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","uid":"u-9","managedFields":[{"manager":"kubectl"}]},"data":{"a":"b"}}`
	const stripped = `{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"name":"cm","uid":"u-9"}}`
	tests := []struct {
		name         string
		policy       string
		reqBody      string
		wantRequest  string
		wantResponse string
	}{
		{"Metadata keeps no bodies", "rules:\n- level: Metadata\n", body, "", ""},
		{"Request keeps the request", "rules:\n- level: Request\n", body, body, ""},
		{"RequestResponse keeps both", "rules:\n- level: RequestResponse\n", body, body, body},
		{"omitManagedFields", "omitManagedFields: true\nrules:\n- level: RequestResponse\n", body, stripped, stripped},
		{"rule keeps managed fields", "omitManagedFields: true\nrules:\n- level: RequestResponse\n  omitManagedFields: false\n", body, body, body},
		{"YAML apply patch becomes JSON", "rules:\n- level: Request\n", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  uid: u-9\n", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","uid":"u-9"}}`, ""},
		{"non-JSON body dropped", "rules:\n- level: Request\n", "\x0a\x02\x08\x01k8s\x00", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &memSink{}
			st := &request.State{Info: resourceInfo("create", "", "configmaps", "", "default", ""), AuditID: "a-2"}
			req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", strings.NewReader(tt.reqBody))
			serve(t, "omitStages: [RequestReceived]\n"+tt.policy, sink, st, req, func(w http.ResponseWriter, r *http.Request) {
				buf := []byte(tt.reqBody)
				RecorderFrom(r.Context()).SetRequestObject(buf)
				copy(buf, "XXXXXXXX") // the caller may reuse its buffer
				RecorderFrom(r.Context()).SetResponseObject([]byte(body))
				w.WriteHeader(http.StatusCreated)
			})
			if len(sink.events) != 1 {
				t.Fatalf("stages = %v, want only ResponseComplete", sink.stages())
			}
			ev := sink.events[0]
			if got := rawOf(ev.RequestObject); got != tt.wantRequest {
				t.Errorf("requestObject = %s, want %s", got, tt.wantRequest)
			}
			if got := rawOf(ev.ResponseObject); got != tt.wantResponse {
				t.Errorf("responseObject = %s, want %s", got, tt.wantResponse)
			}
			// The name of a created object comes from its body, at any level.
			if tt.wantRequest != "" || tt.name == "Metadata keeps no bodies" {
				want := &auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "cm", UID: "u-9", APIVersion: "v1"}
				if diff := cmp.Diff(want, ev.ObjectRef); diff != "" {
					t.Errorf("objectRef (-want +got):\n%s", diff)
				}
			}
			if ev.ResponseStatus.Code != http.StatusCreated {
				t.Errorf("code = %d, want 201", ev.ResponseStatus.Code)
			}
			if _, err := json.Marshal(ev); err != nil {
				t.Errorf("event does not encode: %v", err)
			}
		})
	}
}

func rawOf(u *runtime.Unknown) string {
	if u == nil {
		return ""
	}
	return string(u.Raw)
}

func TestMiddlewareNotAudited(t *testing.T) {
	sink := &memSink{}
	called := false
	st := &request.State{Info: nonResourceInfo("get", "/healthz")}
	serve(t, "rules:\n- level: None\n  nonResourceURLs: [/healthz]\n- level: Metadata\n", sink, st,
		httptest.NewRequest(http.MethodGet, "/healthz", nil), func(w http.ResponseWriter, r *http.Request) {
			called = true
			RecorderFrom(r.Context()).SetRequestObject([]byte(`{}`)) // nil Recorder is a no-op
			if RecorderFrom(r.Context()) != nil {
				t.Error("recorder for an unaudited request")
			}
		})
	if !called || len(sink.events) != 0 {
		t.Errorf("called = %v, events = %v", called, sink.stages())
	}
}

func TestMiddlewareStatusAndNoResponse(t *testing.T) {
	tests := []struct {
		name    string
		info    *request.Info
		handler http.HandlerFunc
		stages  []auditv1.Stage
		want    *metav1.Status
	}{
		{
			name: "error status",
			info: resourceInfo("get", "", "pods", "", "default", "nope"),
			handler: func(w http.ResponseWriter, r *http.Request) {
				RecorderFrom(r.Context()).SetResponseStatus(&metav1.Status{
					TypeMeta: metav1.TypeMeta{Kind: "Status"}, ListMeta: metav1.ListMeta{ResourceVersion: "9"},
					Status: metav1.StatusFailure, Message: `pods "nope" not found`, Reason: metav1.StatusReasonNotFound,
					Details: &metav1.StatusDetails{Name: "nope", Kind: "pods"}, Code: 404,
				})
				w.WriteHeader(http.StatusNotFound)
			},
			stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete},
			want: &metav1.Status{Status: metav1.StatusFailure, Message: `pods "nope" not found`, Reason: metav1.StatusReasonNotFound,
				Details: &metav1.StatusDetails{Name: "nope", Kind: "pods"}, Code: 404},
		},
		{
			name: "written code wins over status code",
			info: resourceInfo("get", "", "pods", "", "default", "p"),
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusConflict)
				RecorderFrom(r.Context()).SetResponseStatus(&metav1.Status{Status: metav1.StatusFailure, Code: 500})
			},
			stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete},
			want:   &metav1.Status{Status: metav1.StatusFailure, Code: 409},
		},
		{
			name:    "nothing written",
			info:    resourceInfo("get", "", "pods", "", "default", "p"),
			handler: func(w http.ResponseWriter, r *http.Request) {},
			stages:  []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete},
			want:    &metav1.Status{Code: 200, Status: metav1.StatusSuccess, Message: "Connection closed early"},
		},
		{
			name:    "watch that writes nothing still starts",
			info:    resourceInfo("watch", "", "pods", "", "default", ""),
			handler: func(w http.ResponseWriter, r *http.Request) {},
			stages:  []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StageResponseComplete},
			want:    &metav1.Status{Code: 200, Status: metav1.StatusSuccess, Message: "Connection closed early"},
		},
		{
			name: "early hints are not the response",
			info: resourceInfo("get", "", "pods", "", "default", "p"),
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusAccepted)
			},
			stages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete},
			want:   &metav1.Status{Code: 202},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &memSink{}
			st := &request.State{Info: tt.info}
			serve(t, "rules:\n- level: Metadata\n", sink, st, httptest.NewRequest(http.MethodGet, "/x", nil), tt.handler)
			if diff := cmp.Diff(tt.stages, sink.stages()); diff != "" {
				t.Fatalf("stages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, sink.events[len(sink.events)-1].ResponseStatus); diff != "" {
				t.Errorf("responseStatus (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMiddlewareWatch(t *testing.T) {
	sink := &memSink{}
	st := &request.State{Info: resourceInfo("watch", "", "pods", "", "default", "")}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods?watch=true", nil)
	serve(t, "rules:\n- level: Metadata\n", sink, st, req, func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			t.Fatal("the audit writer hides http.Flusher")
		}
		if got := sink.stages(); len(got) != 1 {
			t.Errorf("before the first write: %v", got)
		}
		f.Flush()
		// ResponseStarted is out while the watch is still streaming.
		want := []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted}
		if diff := cmp.Diff(want, sink.stages()); diff != "" {
			t.Errorf("after the first flush (-want +got):\n%s", diff)
		}
		w.Write([]byte(`{"type":"ADDED"}`))
		f.Flush()
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController cannot flush through the audit writer: %v", err)
		}
	})
	want := []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StageResponseComplete}
	if diff := cmp.Diff(want, sink.stages()); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
	for _, ev := range sink.events[1:] {
		if ev.ResponseStatus == nil || ev.ResponseStatus.Code != 200 {
			t.Errorf("%s responseStatus = %v", ev.Stage, ev.ResponseStatus)
		}
	}
}

func TestMiddlewareOmitStages(t *testing.T) {
	sink := &memSink{}
	st := &request.State{Info: resourceInfo("watch", "", "pods", "", "", "")}
	serve(t, "omitStages: [RequestReceived]\nrules:\n- level: Metadata\n  omitStages: [ResponseStarted]\n", sink, st,
		httptest.NewRequest(http.MethodGet, "/api/v1/pods?watch=1", nil), func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("{}"))
		})
	if diff := cmp.Diff([]auditv1.Stage{auditv1.StageResponseComplete}, sink.stages()); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
}

func TestMiddlewarePanic(t *testing.T) {
	sink := &memSink{}
	st := &request.State{Info: resourceInfo("create", "", "pods", "", "default", ""), AuditID: "a-3"}
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		serve(t, "rules:\n- level: Metadata\n", sink, st, httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", nil),
			func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	}()
	if recovered != "boom" {
		t.Errorf("re-raised panic = %v, want boom", recovered)
	}
	if diff := cmp.Diff([]auditv1.Stage{auditv1.StageRequestReceived, auditv1.StagePanic}, sink.stages()); diff != "" {
		t.Fatalf("stages (-want +got):\n%s", diff)
	}
	want := &metav1.Status{Code: 500, Status: metav1.StatusFailure, Reason: metav1.StatusReasonInternalError, Message: "APIServer panic'd: boom"}
	if diff := cmp.Diff(want, sink.events[1].ResponseStatus); diff != "" {
		t.Errorf("responseStatus (-want +got):\n%s", diff)
	}
}

func TestMiddlewarePanicThroughServer(t *testing.T) {
	// net/http recovers the re-raised panic: the server keeps serving.
	sink := &memSink{}
	p := mustParse(t, policyHead+"rules:\n- level: Metadata\n")
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic(http.ErrAbortHandler)
		}
		w.WriteHeader(http.StatusTeapot)
	}), sink, p)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &request.State{Info: nonResourceInfo(strings.ToLower(r.Method), r.URL.Path)}
		h.ServeHTTP(w, r.WithContext(request.WithState(r.Context(), st)))
	}))
	defer srv.Close()
	if _, err := srv.Client().Get(srv.URL + "/panic"); err == nil {
		t.Error("a panicking request got a response")
	}
	resp, err := srv.Client().Get(srv.URL + "/ok")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot {
		t.Errorf("code = %d", resp.StatusCode)
	}
	want := []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StagePanic, auditv1.StageRequestReceived, auditv1.StageResponseComplete}
	if diff := cmp.Diff(want, sink.stages()); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
}

func TestMiddlewareSinkFailure(t *testing.T) {
	sink := &memSink{err: errors.New("disk full")}
	called := false
	w := serve(t, "rules:\n- level: Metadata\n", sink, &request.State{Info: resourceInfo("delete", "", "pods", "", "a", "p")},
		httptest.NewRequest(http.MethodDelete, "/api/v1/namespaces/a/pods/p", nil), func(w http.ResponseWriter, r *http.Request) { called = true })
	if called {
		t.Error("request served although its audit event was lost")
	}
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("code = %d, want 500", w.Code)
	}
	var st metav1.Status
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || st.Reason != metav1.StatusReasonInternalError || st.Kind != "Status" {
		t.Errorf("body %s: %v", w.Body, err)
	}
}

func TestMiddlewareWithoutState(t *testing.T) {
	sink := &memSink{}
	serve(t, "rules:\n- level: Metadata\n  nonResourceURLs: [/x]\n", sink, nil, httptest.NewRequest(http.MethodPost, "/x", nil),
		func(w http.ResponseWriter, r *http.Request) {})
	if len(sink.events) != 2 || sink.events[0].Verb != "post" || sink.events[0].ObjectRef != nil {
		t.Errorf("events = %+v", sink.events)
	}
}

func TestMiddlewareNilSinkOrPolicy(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	p := mustParse(t, policyHead+"rules:\n- level: Metadata\n")
	for name, got := range map[string]http.Handler{"nil sink": Middleware(h, nil, p), "nil policy": Middleware(h, &memSink{}, nil)} {
		if _, ok := got.(http.HandlerFunc); !ok {
			t.Errorf("%s: handler was wrapped", name)
		}
	}
}

func TestRecorderExtras(t *testing.T) {
	sink := &memSink{}
	st := &request.State{Info: resourceInfo("get", "", "pods", "", "a", "p"), User: alice()}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/a/pods/p", nil)
	req.Header.Set("User-Agent", strings.Repeat("u", 2000))
	rec, err := Begin(sink, Decision{Level: auditv1.LevelMetadata}, st, req, metav1.Now().Time)
	if err != nil {
		t.Fatal(err)
	}
	rec.SetImpersonatedUser(&user.DefaultInfo{Name: "bob", Groups: []string{"devs"}})
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	if err := rec.End(); err != nil || len(sink.events) != 2 {
		t.Errorf("second End: %v, %d events", err, len(sink.events))
	}
	ev := sink.events[1]
	if want := strings.Repeat("u", 1024) + "...TRUNCATED"; ev.UserAgent != want {
		t.Errorf("userAgent has %d bytes", len(ev.UserAgent))
	}
	if diff := cmp.Diff(&authnv1.UserInfo{Username: "bob", Groups: []string{"devs"}}, ev.ImpersonatedUser); diff != "" {
		t.Errorf("impersonatedUser (-want +got):\n%s", diff)
	}
	if ev.User.Username != "alice" {
		t.Errorf("user = %q, want the authenticated user", ev.User.Username)
	}
	if r, err := Begin(sink, Decision{Level: auditv1.LevelNone}, st, req, metav1.Now().Time); r != nil || err != nil {
		t.Errorf("Begin at None = %v, %v", r, err)
	}
	var nilRec *Recorder
	nilRec.SetResponseStatus(&metav1.Status{})
	nilRec.SetImpersonatedUser(alice())
	if nilRec.Level() != auditv1.LevelNone || nilRec.ResponseStarted(200) != nil || nilRec.End() != nil || nilRec.Panic("x") != nil {
		t.Error("nil Recorder is not a no-op")
	}
	if RecorderFrom(context.Background()) != nil {
		t.Error("recorder from an empty context")
	}
}

func TestLongRunning(t *testing.T) {
	tests := []struct {
		info *request.Info
		want bool
	}{
		{resourceInfo("watch", "", "pods", "", "", ""), true},
		{resourceInfo("list", "", "pods", "", "", ""), false},
		{resourceInfo("get", "", "pods", "log", "a", "p"), true},
		{resourceInfo("create", "", "pods", "exec", "a", "p"), true},
		{resourceInfo("create", "", "pods", "portforward", "a", "p"), true},
		{resourceInfo("get", "", "services", "proxy", "a", "s"), true},
		{resourceInfo("update", "", "pods", "status", "a", "p"), false},
		{nonResourceInfo("get", "/debug/pprof/profile"), true},
		{nonResourceInfo("get", "/healthz"), false},
	}
	for _, tt := range tests {
		if got := isLongRunning(tt.info); got != tt.want {
			t.Errorf("isLongRunning(%s %s/%s %s) = %v", tt.info.Verb, tt.info.Resource, tt.info.Subresource, tt.info.Path, got)
		}
	}
}
