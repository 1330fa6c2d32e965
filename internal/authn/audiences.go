package authn

import "context"

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
