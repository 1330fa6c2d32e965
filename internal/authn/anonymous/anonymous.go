package anonymous

import (
	"net/http"
	"slices"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

// Rules say whether, and for which paths, anonymous requests are allowed.
// The zero value allows none.
type Rules struct {
	enabled bool
	paths   map[string]struct{} // empty: every path
}

// Disabled allows no anonymous request.
func Disabled() Rules { return Rules{} }

// FromFlag is --anonymous-auth: every path or none.
func FromFlag(enabled bool) Rules { return Rules{enabled: enabled} }

// FromConfig is the anonymous field of an AuthenticationConfiguration;
// nil allows none.
func FromConfig(c *apiserverv1.AnonymousAuthConfig) Rules {
	if c == nil || !c.Enabled {
		return Rules{}
	}
	r := Rules{enabled: true}
	if len(c.Conditions) > 0 {
		r.paths = make(map[string]struct{}, len(c.Conditions))
		for _, cond := range c.Conditions {
			r.paths[cond.Path] = struct{}{}
		}
	}
	return r
}

// Resolve combines --anonymous-auth with the configuration file as
// kube-apiserver does. flagSet says whether the flag was given on the
// command line (its default, true, applies otherwise); fromFile is the
// file's anonymous field, nil when absent or when there is no file.
func Resolve(flagValue, flagSet bool, fromFile *apiserverv1.AnonymousAuthConfig) (Rules, error) {
	switch {
	case fromFile != nil && flagSet:
		return Rules{}, ErrFlagConflict
	case fromFile != nil:
		return FromConfig(fromFile), nil
	default:
		return FromFlag(flagValue), nil
	}
}

// Enabled reports whether any anonymous request is allowed.
func (r Rules) Enabled() bool { return r.enabled }

// Paths returns the allowed paths in order, or nil when every path is.
func (r Rules) Paths() []string {
	if len(r.paths) == 0 {
		return nil
	}
	out := make([]string, 0, len(r.paths))
	for p := range r.paths {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Allows reports whether a request for path may be anonymous. Paths match
// exactly, as in kube-apiserver: /healthz does not allow /healthz/etcd.
func (r Rules) Allows(path string) bool {
	if !r.enabled {
		return false
	}
	if len(r.paths) == 0 {
		return true
	}
	_, ok := r.paths[path]
	return ok
}

// AuthenticateRequest implements authn.Authenticator: allowed requests
// are system:anonymous, others are not recognised.
func (r Rules) AuthenticateRequest(req *http.Request) (user.Info, bool, error) {
	if !r.Allows(req.URL.Path) {
		return nil, false, nil
	}
	return &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}, true, nil
}

// WithFallback returns chain, falling back to anonymous for requests the
// chain did not recognise. An error from the chain (a credential that was
// presented but is not valid) is returned as is: a bad token is a 401,
// never an anonymous request. Anonymous users do not get
// system:authenticated, so wrap the chain (an authn.Union), not the result.
func WithFallback(chain authn.Authenticator, r Rules) authn.Authenticator {
	if !r.enabled {
		return chain
	}
	return authn.Func(func(req *http.Request) (user.Info, bool, error) {
		if chain != nil {
			info, ok, err := chain.AuthenticateRequest(req)
			if ok || err != nil {
				return info, ok, err
			}
		}
		return r.AuthenticateRequest(req)
	})
}
