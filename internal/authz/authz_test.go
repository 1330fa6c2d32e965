package authz

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/request"
)

func decide(d authorizer.Decision, reason string, err error) Authorizer {
	return authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return d, reason, err
	})
}

func TestUnion(t *testing.T) {
	tests := []struct {
		name   string
		chain  Union
		want   authorizer.Decision
		reason string
	}{
		{"empty chain has no opinion", Union{}, authorizer.DecisionNoOpinion, ""},
		{"first allow wins", Union{decide(authorizer.DecisionNoOpinion, "", nil), decide(authorizer.DecisionAllow, "ok", nil), decide(authorizer.DecisionDeny, "no", nil)}, authorizer.DecisionAllow, "ok"},
		{"deny stops the chain", Union{decide(authorizer.DecisionDeny, "no", nil), decide(authorizer.DecisionAllow, "ok", nil)}, authorizer.DecisionDeny, "no"},
		{"reasons of abstainers are joined", Union{decide(authorizer.DecisionNoOpinion, "a", nil), decide(authorizer.DecisionNoOpinion, "b", nil)}, authorizer.DecisionNoOpinion, "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, _ := tt.chain.Authorize(context.Background(), authorizer.AttributesRecord{})
			if d != tt.want || reason != tt.reason {
				t.Errorf("got %v %q, want %v %q", d, reason, tt.want, tt.reason)
			}
		})
	}
	var zero authorizer.Decision
	if zero != authorizer.DecisionDeny {
		t.Error("the zero decision must deny")
	}
}

func TestSuperuser(t *testing.T) {
	for _, tt := range []struct {
		groups []string
		want   authorizer.Decision
	}{{[]string{"system:masters"}, authorizer.DecisionAllow}, {[]string{"devs"}, authorizer.DecisionNoOpinion}, {nil, authorizer.DecisionNoOpinion}} {
		d, _, _ := Superuser.Authorize(context.Background(), authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x", Groups: tt.groups}})
		if d != tt.want {
			t.Errorf("groups %v: %v, want %v", tt.groups, d, tt.want)
		}
	}
}

func TestForbiddenMessages(t *testing.T) {
	bob := &user.DefaultInfo{Name: "bob"}
	tests := []struct {
		attrs authorizer.AttributesRecord
		want  string
	}{
		{authorizer.AttributesRecord{User: bob, Verb: "list", Resource: "pods", Namespace: "default", ResourceRequest: true},
			`pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`},
		{authorizer.AttributesRecord{User: bob, Verb: "get", Resource: "pods", Subresource: "log", Namespace: "ns", Name: "p", ResourceRequest: true},
			`pods "p" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "ns"`},
		{authorizer.AttributesRecord{User: bob, Verb: "create", APIGroup: "rbac.authorization.k8s.io", Resource: "clusterroles", ResourceRequest: true},
			`clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`},
		{authorizer.AttributesRecord{User: bob, Verb: "get", Path: "/metrics"},
			`forbidden: User "bob" cannot get path "/metrics"`},
	}
	for _, tt := range tests {
		err := Forbidden(tt.attrs, "")
		if got := err.Error(); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
		if !apierrors.IsForbidden(err) {
			t.Errorf("%v is not Forbidden", err)
		}
	}
}

type errWriter struct{ err error }

func (e *errWriter) Error(w http.ResponseWriter, _ *http.Request, err error) {
	e.err = err
	w.WriteHeader(http.StatusTeapot)
}

func serve(h http.Handler, r *http.Request, u user.Info) *request.State {
	st := &request.State{Info: request.Parse(r), User: u}
	h.ServeHTTP(httptest.NewRecorder(), r.WithContext(request.WithState(r.Context(), st)))
	return st
}

func TestFilter(t *testing.T) {
	allowAlice := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetUser().GetName() == "alice" {
			return authorizer.DecisionAllow, "alice may", nil
		}
		if a.GetUser().GetName() == "broken" {
			return authorizer.DecisionNoOpinion, "", errors.New("webhook down")
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	reached := false
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })
	out := &errWriter{}
	h := Filter(next, allowAlice, out)

	st := serve(h, httptest.NewRequest("GET", "/api/v1/namespaces/default/pods", nil), &user.DefaultInfo{Name: "alice"})
	if !reached || out.err != nil {
		t.Fatalf("alice refused: %v", out.err)
	}
	if diff := cmp.Diff(map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "alice may"}, st.Annotations()); diff != "" {
		t.Error(diff)
	}
	reached = false
	serve(h, httptest.NewRequest("GET", "/api/v1/namespaces/default/pods", nil), &user.DefaultInfo{Name: "bob"})
	if reached || !apierrors.IsForbidden(out.err) || !strings.Contains(out.err.Error(), `User "bob" cannot list resource "pods"`) {
		t.Errorf("bob: reached=%v err=%v", reached, out.err)
	}
	// An authorizer's error is kube-apiserver's plain-text 500, with only
	// the reason "internal error" audited.
	out.err = nil
	r := httptest.NewRequest("GET", "/api/v1/namespaces/default/pods?limit=1", nil)
	rec := httptest.NewRecorder()
	bst := &request.State{Info: request.Parse(r), User: &user.DefaultInfo{Name: "broken"}}
	h.ServeHTTP(rec, r.WithContext(request.WithState(r.Context(), bst)))
	if want := "Internal Server Error: \"/api/v1/namespaces/default/pods?limit=1\": webhook down\n"; rec.Code != http.StatusInternalServerError || rec.Body.String() != want || out.err != nil {
		t.Errorf("authorizer error: %d %q %v", rec.Code, rec.Body.String(), out.err)
	}
	if diff := cmp.Diff(map[string]string{"authorization.k8s.io/reason": "internal error"}, bst.Annotations()); diff != "" {
		t.Error(diff)
	}
}
