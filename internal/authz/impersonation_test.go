package authz

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestImpersonation(t *testing.T) {
	// alice may impersonate anything; bob may impersonate only user "carol".
	az := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetUser().GetName() == "alice" || (a.GetResource() == "users" && a.GetName() == "carol") ||
			// erin: constrained user-info impersonation of anyone, when listing
			(a.GetUser().GetName() == "erin" && (a.GetVerb() == "impersonate-on:user-info:list" || a.GetVerb() == "impersonate:user-info")) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	tests := []struct {
		name    string
		as      string
		headers map[string][]string
		want    *user.DefaultInfo
		wantErr func(error) bool
		errText string
	}{
		{name: "no headers", as: "bob", want: &user.DefaultInfo{Name: "bob"}},
		{name: "user and groups", as: "alice", headers: map[string][]string{"Impersonate-User": {"dave"}, "Impersonate-Group": {"g1", "g2"}, "Impersonate-Uid": {"u-1"}, "Impersonate-Extra-Scopes": {"a", "b"}},
			want: &user.DefaultInfo{Name: "dave", UID: "u-1", Groups: []string{"g1", "g2", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a", "b"}}}},
		{name: "service account gets its groups", as: "alice", headers: map[string][]string{"Impersonate-User": {"system:serviceaccount:ns1:robot"}},
			want: &user.DefaultInfo{Name: "system:serviceaccount:ns1:robot", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"}}},
		{name: "anonymous stays unauthenticated", as: "alice", headers: map[string][]string{"Impersonate-User": {"system:anonymous"}},
			want: &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}},
		{name: "allowed user only", as: "bob", headers: map[string][]string{"Impersonate-User": {"carol"}},
			want: &user.DefaultInfo{Name: "carol", Groups: []string{"system:authenticated"}}},
		{name: "forbidden user", as: "bob", headers: map[string][]string{"Impersonate-User": {"dave"}}, wantErr: apierrors.IsForbidden,
			errText: `pods is forbidden: User "bob" cannot impersonate-on:user-info:list resource "pods" in API group "" at the cluster scope`},
		{name: "forbidden group", as: "bob", headers: map[string][]string{"Impersonate-User": {"carol"}, "Impersonate-Group": {"system:masters"}}, wantErr: apierrors.IsForbidden,
			errText: `pods is forbidden: User "bob" cannot impersonate-on:user-info:list resource "pods" in API group "" at the cluster scope`},
		{name: "constrained user-info", as: "erin", headers: map[string][]string{"Impersonate-User": {"frank"}},
			want: &user.DefaultInfo{Name: "frank", Groups: []string{"system:authenticated"}}},
		{name: "constrained system:masters", as: "erin", headers: map[string][]string{"Impersonate-User": {"frank"}, "Impersonate-Group": {"system:masters"}}, wantErr: apierrors.IsForbidden,
			errText: `groups.authentication.k8s.io "system:masters" is forbidden: User "erin" cannot impersonate:user-info resource "groups" in API group "authentication.k8s.io" at the cluster scope: impersonating the system:masters group is not allowed`},
		{name: "node by arbitrary-node", as: "alice", headers: map[string][]string{"Impersonate-User": {"system:node:n1"}},
			want: &user.DefaultInfo{Name: "system:node:n1", Groups: []string{"system:nodes", "system:authenticated"}}},
		{name: "group without user", as: "alice", headers: map[string][]string{"Impersonate-Group": {"g"}}, wantErr: apierrors.IsBadRequest,
			errText: `requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"g"}, Extra:map[string][]string(nil)} without impersonating a user name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen user.Info
			next := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Impersonate-User") != "" {
					t.Error("impersonation headers reach the handler")
				}
			})
			out := &errWriter{}
			r := httptest.NewRequest("GET", "/api/v1/pods", nil)
			for k, vs := range tt.headers {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			h, err := Impersonation(next, az, out, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := serve(h, r, &user.DefaultInfo{Name: tt.as})
			seen = st.User
			if tt.wantErr != nil {
				if out.err == nil || !tt.wantErr(out.err) || out.err.Error() != tt.errText {
					t.Fatalf("err = %v, want %s", out.err, tt.errText)
				}
				return
			}
			if out.err != nil {
				t.Fatal(out.err)
			}
			if diff := cmp.Diff(tt.want, seen); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestImpersonationMetrics(t *testing.T) {
	az := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetUser().GetName() == "alice" {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	reg := prometheus.NewRegistry()
	h, err := Impersonation(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), az, &errWriter{}, reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range []string{"alice", "bob"} {
		r := httptest.NewRequest("GET", "/api/v1/pods", nil)
		r.Header.Set("Impersonate-User", "carol")
		serve(h, r, &user.DefaultInfo{Name: as})
	}
	want := `
# HELP apiserver_impersonation_attempts_total [ALPHA] Total number of impersonation attempts split by mode and decision.
# TYPE apiserver_impersonation_attempts_total counter
apiserver_impersonation_attempts_total{decision="allowed",mode="user-info"} 1
apiserver_impersonation_attempts_total{decision="denied",mode=""} 1
# HELP apiserver_impersonation_authorization_attempts_total [ALPHA] Total number of authorization checks made by the impersonation handler split by mode and decision.
# TYPE apiserver_impersonation_authorization_attempts_total counter
apiserver_impersonation_authorization_attempts_total{decision="allowed",mode="user-info"} 2
apiserver_impersonation_authorization_attempts_total{decision="denied",mode="legacy"} 1
apiserver_impersonation_authorization_attempts_total{decision="denied",mode="user-info"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_impersonation_attempts_total", "apiserver_impersonation_authorization_attempts_total"); err != nil {
		t.Error(err)
	}
}
