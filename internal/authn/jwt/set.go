package jwt

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apiserver/pkg/authentication/user"
)

// Set is the JWT authenticators of one configuration. Issuer URLs are
// unique, so a token goes to at most one of them, chosen by its
// (unverified) iss claim in constant time however many are configured.
type Set struct {
	byIssuer     map[string]*Authenticator
	all          []*Authenticator
	maxTokenSize int
}

// NewSet routes tokens to the authenticators by issuer. Two authenticators
// for one issuer are an error. An empty set recognises no token.
func NewSet(auths ...*Authenticator) (*Set, error) {
	s := &Set{byIssuer: make(map[string]*Authenticator, len(auths)), all: auths, maxTokenSize: DefaultMaxTokenSize}
	for i, a := range auths {
		if _, dup := s.byIssuer[a.c.issuer]; dup {
			return nil, fmt.Errorf("jwt: issuer %q configured twice", a.c.issuer)
		}
		s.byIssuer[a.c.issuer] = a
		if i == 0 || a.opts.MaxTokenSize > s.maxTokenSize {
			s.maxTokenSize = a.opts.MaxTokenSize
		}
	}
	return s, nil
}

// Authenticators returns the members in configuration order.
func (s *Set) Authenticators() []*Authenticator { return s.all }

// AuthenticateToken implements authn.Token. Tokens that are not JWTs, or
// whose issuer is not configured, are not recognised (ok false, no error)
// so that other authenticators can try them.
func (s *Set) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	if len(s.byIssuer) == 0 {
		return nil, false, nil
	}
	if len(token) > s.maxTokenSize {
		if looksLikeJWT(token) {
			return nil, false, fmt.Errorf("%w: %d bytes, limit %d", ErrTokenTooLarge, len(token), s.maxTokenSize)
		}
		return nil, false, nil
	}
	iss, ok := untrustedIssuer(token)
	if !ok {
		return nil, false, nil
	}
	a := s.byIssuer[iss]
	if a == nil {
		return nil, false, nil
	}
	if a.opts.Observe == nil {
		return a.AuthenticateToken(ctx, token)
	}
	start := a.opts.Now()
	u, ok, err := a.AuthenticateToken(ctx, token)
	if ok || err != nil {
		a.opts.Observe(a.c.issuer, err == nil, a.opts.Now().Sub(start))
	}
	return u, ok, err
}

// Run runs every member's Run until ctx is cancelled.
func (s *Set) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, a := range s.all {
		wg.Go(func() { a.Run(ctx) })
	}
	wg.Wait()
}

// HealthCheck returns nil when every member can verify tokens.
func (s *Set) HealthCheck() error {
	var errs []error
	for _, a := range s.all {
		if err := a.HealthCheck(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WaitReady blocks until every member is ready or ctx ends, and then
// returns HealthCheck's verdict (or ctx's error with it).
func (s *Set) WaitReady(ctx context.Context) error {
	for _, a := range s.all {
		select {
		case <-a.Ready():
		case <-ctx.Done():
			return errors.Join(ctx.Err(), s.HealthCheck())
		}
	}
	return nil
}
