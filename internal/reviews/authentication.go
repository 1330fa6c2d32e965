package reviews

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/request"
)

// SelfSubject answers a SelfSubjectReview with the requesting user.
func SelfSubject(ctx context.Context, obj runtime.Object, _ bool) (runtime.Object, error) {
	if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %T", obj))
	}
	st := request.StateFrom(ctx)
	if st == nil || st.User == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no user in request context"))
	}
	// kube-apiserver answers with a fresh object: the request's metadata
	// is dropped and only the creation time is set.
	out := &authenticationv1.SelfSubjectReview{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Now()}}
	out.Status.UserInfo = UserInfo(st.User)
	return out, nil
}

// UserInfo converts a user to the API's representation.
func UserInfo(u user.Info) authenticationv1.UserInfo {
	info := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		info.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range extra {
			info.Extra[k] = authenticationv1.ExtraValue(v)
		}
	}
	return info
}

// Token answers TokenReviews with the token authenticator. Audiences in the
// spec are checked by authenticators that support them (those that read
// them from the context); an empty list means APIAudiences.
type Token struct {
	Authenticator authn.Token
	APIAudiences  []string
}

// Review answers one TokenReview.
func (t Token) Review(ctx context.Context, obj runtime.Object, _ bool) (runtime.Object, error) {
	review, ok := obj.(*authenticationv1.TokenReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenReview: %T", obj))
	}
	if review.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	// kube-apiserver answers with the request object, the token included.
	out := review.DeepCopy()
	out.Status = authenticationv1.TokenReviewStatus{}
	if t.Authenticator == nil {
		return out, nil
	}
	auds := review.Spec.Audiences
	if len(auds) == 0 {
		auds = t.APIAudiences
	}
	ctx = authn.WithAudiences(ctx, auds)
	u, ok, err := t.Authenticator.AuthenticateToken(ctx, review.Spec.Token)
	switch {
	case err != nil:
		out.Status.Error = bearerError(err)
	case !ok:
		out.Status.Error = authn.ErrInvalidBearerToken.Error()
	default:
		out.Status.Authenticated = true
		out.Status.User = UserInfo(authn.WithAuthenticatedGroup(u))
		out.Status.Audiences = authn.AudiencesFrom(ctx)
	}
	return out, nil
}

// bearerError is the text of a token's refusal as kube-apiserver reviews
// it: as a request's bearer token, first by its loopback client's token
// authenticator (which does not know it) and then by the configured ones,
// their errors joined and each text once.
func bearerError(err error) string {
	invalid := authn.ErrInvalidBearerToken.Error()
	if err.Error() == invalid {
		return invalid
	}
	return "[" + invalid + ", " + err.Error() + "]"
}
