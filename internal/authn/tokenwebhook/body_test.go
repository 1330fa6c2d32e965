package tokenwebhook

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/internal/authn"
)

// TestRequest checks the exact review each version sends: to the
// kubeconfig's URL with client-go's timeout parameter and the
// kubeconfig's credentials, spec.audiences being the request's audiences
// or else the server's own.
func TestRequest(t *testing.T) {
	const allowedV1beta1 = `{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenReview","status":{"authenticated":true,"user":{"username":"alice"}}}`
	tests := []struct {
		name     string
		version  string
		implicit []string
		ctxAuds  []string
		answer   string
		wantBody string
	}{
		{
			name:     "v1 without audiences",
			version:  "v1",
			answer:   allowedV1,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},"spec":{"token":"t0k3n"},"status":{"user":{}}}`,
		},
		{
			name:     "v1beta1 without audiences",
			version:  "v1beta1",
			answer:   allowedV1beta1,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1beta1","metadata":{},"spec":{"token":"t0k3n"},"status":{"user":{}}}`,
		},
		{
			name:     "v1 with the server's audiences",
			version:  "v1",
			implicit: []string{"https://kubernetes.default.svc", "api"},
			answer:   allowedV1,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},"spec":{"token":"t0k3n","audiences":["https://kubernetes.default.svc","api"]},"status":{"user":{}}}`,
		},
		{
			name:     "v1beta1 with the request's audiences over the server's",
			version:  "v1beta1",
			implicit: []string{"api"},
			ctxAuds:  []string{"vault", "other"},
			answer:   `{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenReview","status":{"authenticated":true,"user":{"username":"alice"},"audiences":["vault"]}}`,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1beta1","metadata":{},"spec":{"token":"t0k3n","audiences":["vault","other"]},"status":{"user":{}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, w, _ := newTest(t, Config{Version: tt.version, Audiences: tt.implicit}, ok(tt.answer))
			ctx := authn.WithAudiences(context.Background(), tt.ctxAuds)
			if _, ok, err := a.AuthenticateToken(ctx, "t0k3n"); err != nil || !ok {
				t.Fatalf("AuthenticateToken = %v, %v; want authenticated", ok, err)
			}
			want := []call{{
				method:      "POST",
				path:        "/authenticate",
				query:       "timeout=30s",
				auth:        "Bearer webhook-secret",
				contentType: "application/json",
				accept:      "application/json, */*",
				body:        tt.wantBody + "\n",
			}}
			if diff := cmp.Diff(want, w.received(), cmp.AllowUnexported(call{})); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}
