package differential

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// webhookFixture is an HTTPS server on 127.0.0.1 that answers admission
// or authorization reviews as a suite scripts them, and keeps every review
// it received per path until a step reads them.
type webhookFixture struct {
	url   string
	caPEM []byte

	rules  map[string][]Rule
	answer func(review map[string]any, r Rule) any

	mu       sync.Mutex
	received map[string][]any
}

func newWebhookFixture(t *testing.T, rules map[string][]Rule, answer func(map[string]any, Rule) any) *webhookFixture {
	f := &webhookFixture{rules: rules, answer: answer, received: map[string][]any{}}
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	f.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return f
}

func (f *webhookFixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review map[string]any
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.received[r.URL.Path] = append(f.received[r.URL.Path], review)
	f.mu.Unlock()

	rules, ok := f.rules[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	rule := Rule{Allowed: true}
	for _, c := range rules {
		if c.When.matches(review) {
			rule = c
			break
		}
	}
	if rule.Delay != "" {
		d, err := time.ParseDuration(rule.Delay)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if rule.Code != 0 {
		http.Error(w, rule.Raw, rule.Code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if rule.Raw != "" {
		_, _ = io.WriteString(w, rule.Raw)
		return
	}
	_ = json.NewEncoder(w).Encode(f.answer(review, rule))
}

// take returns and forgets what path received.
func (f *webhookFixture) take(path string) []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	got := f.received[path]
	delete(f.received, path)
	if got == nil {
		got = []any{}
	}
	return got
}

// admissionAnswer is the AdmissionReview a rule answers.
func admissionAnswer(review map[string]any, r Rule) any {
	resp := map[string]any{"uid": field(review, "request", "uid"), "allowed": r.Allowed}
	if r.Status != nil {
		resp["status"] = r.Status
	}
	if r.Patch != nil {
		p, _ := json.Marshal(r.Patch)
		resp["patchType"] = "JSONPatch"
		resp["patch"] = base64.StdEncoding.EncodeToString(p)
	}
	if r.Warnings != nil {
		resp["warnings"] = r.Warnings
	}
	if r.AuditAnnotations != nil {
		resp["auditAnnotations"] = r.AuditAnnotations
	}
	return map[string]any{"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": resp}
}

// authzAnswer is the SubjectAccessReview a rule answers.
func authzAnswer(review map[string]any, r Rule) any {
	status := map[string]any{"allowed": r.Allowed}
	if r.Denied {
		status["denied"] = true
	}
	if r.Reason != "" {
		status["reason"] = r.Reason
	}
	return map[string]any{"apiVersion": review["apiVersion"], "kind": "SubjectAccessReview", "status": status}
}

// matches reports whether review (an AdmissionReview, a
// SubjectAccessReview or a TokenReview) is one m selects.
func (m Match) matches(review map[string]any) bool {
	var got Match
	if review["kind"] == "AdmissionReview" {
		got = Match{
			Operation:   field(review, "request", "operation"),
			Name:        field(review, "request", "name"),
			Namespace:   field(review, "request", "namespace"),
			User:        field(review, "request", "userInfo", "username"),
			Resource:    field(review, "request", "resource", "resource"),
			SubResource: field(review, "request", "subResource"),
		}
	} else if review["kind"] == "TokenReview" {
		got = Match{Token: field(review, "spec", "token")}
	} else {
		got = Match{
			User:        field(review, "spec", "user"),
			Verb:        field(review, "spec", "resourceAttributes", "verb") + field(review, "spec", "nonResourceAttributes", "verb"),
			Name:        field(review, "spec", "resourceAttributes", "name"),
			Namespace:   field(review, "spec", "resourceAttributes", "namespace"),
			Resource:    field(review, "spec", "resourceAttributes", "resource"),
			SubResource: field(review, "spec", "resourceAttributes", "subresource"),
		}
	}
	for _, p := range [][2]string{
		{m.Operation, got.Operation}, {m.Name, got.Name}, {m.Namespace, got.Namespace}, {m.User, got.User},
		{m.Verb, got.Verb}, {m.Resource, got.Resource}, {m.SubResource, got.SubResource}, {m.Token, got.Token},
	} {
		if p[0] != "" && p[0] != p[1] {
			return false
		}
	}
	return true
}

// field is the string at path in a decoded JSON object ("" if absent).
func field(obj map[string]any, path ...string) string {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	s, _ := cur.(string)
	return s
}
