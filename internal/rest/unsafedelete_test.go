package rest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

type decide authorizer.Decision

func (d decide) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.Decision(d), "not in the test's policy", nil
}

// TestUnsafeDelete: ignoreStoreReadErrorWithClusterBreakingPotential
// removes an object that does not decode, answers as kube-apiserver does,
// and refuses readable objects, missing ones and callers without the verb.
func TestUnsafeDelete(t *testing.T) {
	const unsafe = "?ignoreStoreReadErrorWithClusterBreakingPotential=true"
	tests := []struct {
		name   string
		authz  authorizer.UnconditionalAuthorizer
		target string
		code   int
		msg    string
		gone   bool // the corrupt object is gone afterwards
	}{
		{name: "corrupt object", authz: decide(authorizer.DecisionAllow), target: "bad" + unsafe, code: http.StatusOK, gone: true},
		{name: "dry run", authz: decide(authorizer.DecisionAllow), target: "bad" + unsafe + "&dryRun=All", code: http.StatusOK},
		{name: "readable object", authz: decide(authorizer.DecisionAllow), target: "good" + unsafe, code: http.StatusConflict,
			msg: "unsafe deletion is not allowed because the object is decodable from storage"},
		{name: "missing object", authz: decide(authorizer.DecisionAllow), target: "none" + unsafe, code: http.StatusNotFound},
		{name: "no permission", authz: decide(authorizer.DecisionNoOpinion), target: "bad" + unsafe, code: http.StatusForbidden,
			msg: `not permitted to do \"unsafe-delete-ignore-read-errors\", reason: not in the test's policy`},
		{name: "no authorizer", target: "bad" + unsafe, code: http.StatusInternalServerError},
		{name: "with a grace period", authz: decide(authorizer.DecisionAllow), target: "bad" + unsafe + "&gracePeriodSeconds=0", code: http.StatusUnprocessableEntity,
			msg: "cannot be set together with .gracePeriodSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			ts.h.cfg.Authorizer = tt.authz
			ctx := context.Background()
			if _, err := ts.h.store.Create(ctx, "/registry/secrets/default/bad", []byte("not an object")); err != nil {
				t.Fatal(err)
			}
			if r := ts.do("POST", "/api/v1/namespaces/default/secrets", "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"good"}}`); r.code != http.StatusCreated {
				t.Fatalf("creating good: %d %s", r.code, r.body)
			}
			r := ts.do("DELETE", "/api/v1/namespaces/default/secrets/"+tt.target, "", "")
			if r.code != tt.code || !strings.Contains(string(r.body), tt.msg) {
				t.Fatalf("got %d %s, want %d %q", r.code, r.body, tt.code, tt.msg)
			}
			if tt.code == http.StatusOK {
				st := r.status(t)
				if st.Code != 200 || st.Details == nil || st.Details.Kind != "Secret" || st.Details.Name != "bad" || st.Details.Group != "" {
					t.Errorf("status %+v details %+v", st, st.Details)
				}
			}
			_, err := ts.h.store.Get(ctx, "/registry/secrets/default/bad")
			if gone := err != nil; gone != tt.gone {
				t.Errorf("corrupt object gone = %v, want %v", gone, tt.gone)
			}
		})
	}
}
