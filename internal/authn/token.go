package authn

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
)

// Token authenticates a bearer token. Like Authenticator it reports
// whether it recognised the token and errors only for a recognised token
// that is not valid (or when it cannot decide).
type Token interface {
	AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error)
}

// TokenFunc adapts a function to Token.
type TokenFunc func(ctx context.Context, token string) (user.Info, bool, error)

// AuthenticateToken calls f.
func (f TokenFunc) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	return f(ctx, token)
}

// TokenUnion asks each token authenticator in order; the first that
// recognises the token decides.
type TokenUnion []Token

// AuthenticateToken implements Token.
func (u TokenUnion) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	var firstErr error
	for _, a := range u {
		info, ok, err := a.AuthenticateToken(ctx, token)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if ok {
			return info, true, nil
		}
	}
	return nil, false, firstErr
}

// ErrInvalidBearerToken is the error for a bearer token no token
// authenticator recognises: a client that sends a token is never quietly
// treated as anonymous.
var ErrInvalidBearerToken = errors.New("invalid bearer token")

// Bearer authenticates requests carrying "Authorization: Bearer <token>"
// with a Token authenticator. Requests without one are not recognised; a
// token nobody recognises fails with ErrInvalidBearerToken, as in
// kube-apiserver.
type Bearer struct {
	Token Token
	// Audiences are the API server's: a request's token must be for
	// them, as a TokenReview's without audiences of its own.
	Audiences []string
}

// AuthenticateRequest implements Authenticator.
func (b Bearer) AuthenticateRequest(r *http.Request) (user.Info, bool, error) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return nil, false, nil
	}
	parts := strings.SplitN(h, " ", 2)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return nil, false, nil
	}
	token := strings.TrimSpace(parts[1])
	if token == "" {
		return nil, false, nil
	}
	u, ok, err := b.Token.AuthenticateToken(WithAudiences(r.Context(), b.Audiences), token)
	if !ok && err == nil {
		err = ErrInvalidBearerToken
	}
	return u, ok, err
}
