package authz

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestImpersonation(t *testing.T) {
	// alice may impersonate anything; bob may impersonate only user "carol".
	az := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetUser().GetName() == "alice" || (a.GetResource() == "users" && a.GetName() == "carol") {
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
			errText: `users "dave" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{name: "forbidden group", as: "bob", headers: map[string][]string{"Impersonate-User": {"carol"}, "Impersonate-Group": {"system:masters"}}, wantErr: apierrors.IsForbidden,
			errText: `groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{name: "group without user", as: "alice", headers: map[string][]string{"Impersonate-Group": {"g"}}, wantErr: apierrors.IsBadRequest,
			errText: `requested [Impersonate-Group=g] without impersonating a user`},
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
			st := serve(Impersonation(next, az, out), r, &user.DefaultInfo{Name: tt.as})
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
