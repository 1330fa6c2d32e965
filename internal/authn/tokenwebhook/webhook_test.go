package tokenwebhook

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

// result is what Authenticate returned, comparable.
type result struct {
	User      *user.DefaultInfo
	Audiences []string
	OK        bool
	Err       string
}

func authenticate(t *testing.T, a *Authenticator, ctx context.Context) result {
	t.Helper()
	resp, ok, err := a.Authenticate(ctx, "t0k3n")
	r := result{Audiences: resp.Audiences, OK: ok}
	if resp.User != nil {
		r.User = resp.User.(*user.DefaultInfo)
	}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name      string
		version   string
		implicit  []string
		ctxAuds   []string
		answer    answer
		want      result
		wantIs    error
		wantCalls int
	}{
		{
			name:   "authenticated",
			answer: ok(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{"authenticated":true,"user":{"username":"alice","uid":"u-1","groups":["dev","ops"],"extra":{"scopes":["a","b"],"empty":[]}}}}`),
			want: result{OK: true, User: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "ops"},
				Extra: map[string][]string{"scopes": {"a", "b"}, "empty": {}}}},
		},
		{
			name:   "authenticated without extra",
			answer: ok(allowedV1),
			want:   result{OK: true, User: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev"}}},
		},
		{
			name:    "v1beta1 authenticated",
			version: "v1beta1",
			answer:  ok(`{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenReview","status":{"authenticated":true,"user":{"username":"bob","groups":["g"],"extra":{"k":["v"]}}}}`),
			want:    result{OK: true, User: &user.DefaultInfo{Name: "bob", Groups: []string{"g"}, Extra: map[string][]string{"k": {"v"}}}},
		},
		{
			name:   "apiVersion and kind left out",
			answer: ok(`{"status":{"authenticated":true,"user":{"username":"alice"}}}`),
			want:   result{OK: true, User: &user.DefaultInfo{Name: "alice"}},
		},
		{
			name:   "not authenticated",
			answer: ok(deniedV1),
			want:   result{},
		},
		{
			name:   "not authenticated, with the webhook's error",
			answer: ok(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{"authenticated":false,"error":"token expired"}}`),
			want:   result{Err: "token expired"},
			wantIs: ErrRejected,
		},
		{
			name:    "v1beta1 not authenticated, with the webhook's error",
			version: "v1beta1",
			answer:  ok(`{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenReview","status":{"error":"no such token"}}`),
			want:    result{Err: "no such token"},
			wantIs:  ErrRejected,
		},
		{
			name:     "the server's audiences assumed when the answer names none",
			implicit: []string{"api", "other"},
			answer:   ok(allowedV1),
			want:     result{OK: true, User: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev"}}, Audiences: []string{"api", "other"}},
		},
		{
			name:     "the answer's audiences intersected with the request's",
			implicit: []string{"api"},
			ctxAuds:  []string{"a", "b", "c"},
			answer:   ok(`{"status":{"authenticated":true,"user":{"username":"alice"},"audiences":["c","a","z"]}}`),
			want:     result{OK: true, User: &user.DefaultInfo{Name: "alice"}, Audiences: []string{"a", "c"}},
		},
		{
			name:     "the request's audiences against the server's",
			implicit: []string{"api"},
			ctxAuds:  []string{"vault"},
			answer:   ok(allowedV1),
			want:     result{},
		},
		{
			name:    "no shared audience: not recognised, whatever the error",
			ctxAuds: []string{"api"},
			answer:  ok(`{"status":{"authenticated":false,"error":"token expired","audiences":["other"]}}`),
			want:    result{},
		},
		{
			name:    "audiences asked for, none configured nor answered",
			ctxAuds: []string{"api"},
			answer:  ok(allowedV1),
			want:    result{},
		},
		{
			name:   "audiences answered, none asked for: ignored",
			answer: ok(`{"status":{"authenticated":true,"user":{"username":"alice"},"audiences":["x"]}}`),
			want:   result{OK: true, User: &user.DefaultInfo{Name: "alice"}},
		},
		{
			name:      "forbidden: not retried",
			answer:    answer{code: http.StatusForbidden, contentType: "text/plain", body: "go away"},
			want:      result{Err: "go away"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "unauthorized: not retried",
			answer:    answer{code: http.StatusUnauthorized, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"who are you","reason":"Unauthorized","code":401}`},
			want:      result{Err: "who are you"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "service unavailable without Retry-After: not retried",
			answer:    answer{code: http.StatusServiceUnavailable, body: ``},
			want:      result{Err: "the server is currently unable to handle the request"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "not JSON",
			answer:    ok(`<html>hello</html>`),
			want:      result{Err: `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }`},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "empty body",
			answer:    ok(``),
			want:      result{Err: "0-length response with status code: 200 and content type: application/json"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "wrong kind",
			answer:    ok(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true}}`),
			want:      result{Err: "converting (v1.SubjectAccessReview) to (v1.TokenReview): unknown conversion"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "a failure Status in a 200",
			answer:    ok(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope","reason":"Forbidden","code":403}`),
			want:      result{Err: "converting (v1.Status) to (v1.TokenReview): unknown conversion"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "a v1 answer to a v1beta1 review",
			version:   "v1beta1",
			answer:    ok(allowedV1),
			want:      result{Err: "converting (v1.TokenReview) to (v1beta1.TokenReview): unknown conversion"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
		{
			name:      "wrong type for authenticated",
			answer:    ok(`{"status":{"authenticated":"yes"}}`),
			want:      result{Err: "json: cannot unmarshal string into Go struct field TokenReviewStatus.status.authenticated of type bool"},
			wantIs:    ErrWebhook,
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, w, _ := newTest(t, Config{Version: tt.version, Audiences: tt.implicit}, tt.answer)
			ctx := authn.WithAudiences(context.Background(), tt.ctxAuds)
			got := authenticate(t, a, ctx)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Authenticate (-want +got):\n%s", diff)
			}
			if tt.wantIs != nil {
				_, _, err := a.Authenticate(ctx, "t0k3n")
				if !errors.Is(err, tt.wantIs) {
					t.Errorf("error %v is not %v", err, tt.wantIs)
				}
			}
			if tt.wantCalls != 0 {
				if n := len(w.received()); n != 2*tt.wantCalls {
					t.Errorf("webhook called %d times for two authentications, want %d", n, 2*tt.wantCalls)
				}
			}
		})
	}
}
