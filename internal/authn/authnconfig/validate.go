package authnconfig

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authn/jwt"
)

// maxJWTAuthenticators is kube-apiserver's limit.
const maxJWTAuthenticators = 64

// Validate checks a decoded configuration with kube-apiserver's rules and
// messages and compiles its JWT authenticators. Every problem is returned
// with its field path. disallowedIssuers are issuer URLs that JWT
// authenticators may not use (the service account issuers).
func Validate(c *apiserverv1.AuthenticationConfiguration, disallowedIssuers []string) ([]*jwt.Compiled, field.ErrorList) {
	root := field.NewPath("jwt")
	// Zero authenticators are fine: a server may start without any and
	// get them by a reload.
	if len(c.JWT) > maxJWTAuthenticators {
		return nil, field.ErrorList{field.TooMany(root, len(c.JWT), maxJWTAuthenticators)}
	}
	var errs field.ErrorList
	var compiled []*jwt.Compiled
	seenIssuers, seenDiscovery := sets.New[string](), sets.New[string]()
	for i, a := range c.JWT {
		p := root.Index(i)
		cj, e := jwt.Compile(a, p, disallowedIssuers)
		errs = append(errs, e...)
		compiled = append(compiled, cj)

		if seenIssuers.Has(a.Issuer.URL) {
			errs = append(errs, field.Duplicate(p.Child("issuer", "url"), a.Issuer.URL))
		}
		seenIssuers.Insert(a.Issuer.URL)
		if d := a.Issuer.DiscoveryURL; d != nil && *d != "" {
			if seenDiscovery.Has(*d) {
				errs = append(errs, field.Duplicate(p.Child("issuer", "discoveryURL"), *d))
			}
			seenDiscovery.Insert(*d)
		}
	}
	if an := c.Anonymous; an != nil && !an.Enabled && len(an.Conditions) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("anonymous", "conditions"), an.Conditions,
			"enabled should be set to true when conditions are defined"))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return compiled, nil
}
