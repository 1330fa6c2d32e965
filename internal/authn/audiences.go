package authn

import (
	"context"
	"slices"

	"k8s.io/apiserver/pkg/authentication/user"
)

type audiencesKey struct{}

// WithAudiences records the audiences a token must be valid for (a
// TokenReview's spec.audiences); none means the API server's own.
func WithAudiences(ctx context.Context, aud []string) context.Context {
	if len(aud) == 0 {
		return ctx
	}
	return context.WithValue(ctx, audiencesKey{}, aud)
}

// AudiencesFrom returns the audiences recorded by WithAudiences, or nil.
func AudiencesFrom(ctx context.Context) []string {
	aud, _ := ctx.Value(audiencesKey{}).([]string)
	return aud
}

// AudienceAgnostic wraps a token authenticator that knows nothing of
// audiences (a token file), as kube-apiserver does: its tokens are good
// for the API server's own audiences, so a TokenReview that asks for
// other audiences only does not recognise them.
func AudienceAgnostic(apiAudiences []string, t Token) Token {
	if len(apiAudiences) == 0 {
		return t
	}
	return TokenFunc(func(ctx context.Context, token string) (user.Info, bool, error) {
		if want := AudiencesFrom(ctx); len(want) > 0 && !slices.ContainsFunc(want, func(a string) bool { return slices.Contains(apiAudiences, a) }) {
			return nil, false, nil
		}
		return t.AuthenticateToken(ctx, token)
	})
}
