package reviews

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/request"
)

func TestSelfSubject(t *testing.T) {
	u := &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs"}, Extra: map[string][]string{"k": {"v"}}}
	ctx := request.WithState(context.Background(), &request.State{User: u})
	out, err := SelfSubject(ctx, &authenticationv1.SelfSubjectReview{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := authenticationv1.UserInfo{Username: "alice", UID: "u1", Groups: []string{"devs"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}}
	if diff := cmp.Diff(want, out.(*authenticationv1.SelfSubjectReview).Status.UserInfo); diff != "" {
		t.Error(diff)
	}
}

func TestTokenReview(t *testing.T) {
	tokens := authn.TokenFunc(func(ctx context.Context, tok string) (user.Info, bool, error) {
		switch tok {
		case "good":
			return &user.DefaultInfo{Name: "bob"}, true, nil
		case "bad":
			return nil, false, errors.New("token expired")
		}
		return nil, false, nil
	})
	api := []string{"https://kubernetes.default.svc"}
	tests := []struct {
		token string
		want  authenticationv1.TokenReviewStatus
	}{
		{"good", authenticationv1.TokenReviewStatus{Authenticated: true, Audiences: api,
			User: authenticationv1.UserInfo{Username: "bob", Groups: []string{user.AllAuthenticated}}}},
		{"bad", authenticationv1.TokenReviewStatus{Error: "[invalid bearer token, token expired]"}},
		{"unknown", authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}},
	}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			out, err := Token{Authenticator: tokens, APIAudiences: api}.Review(context.Background(),
				&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tt.token}}, false)
			if err != nil {
				t.Fatal(err)
			}
			r := out.(*authenticationv1.TokenReview)
			if diff := cmp.Diff(tt.want, r.Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			// kube-apiserver answers with the request, its token included.
			if r.Spec.Token != tt.token {
				t.Errorf("spec.token %q, want the request's", r.Spec.Token)
			}
		})
	}
	if _, err := (Token{Authenticator: tokens}).Review(context.Background(), &authenticationv1.TokenReview{}, false); err == nil {
		t.Error("empty token accepted")
	}
}
