package serviceaccount

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Expiration limits, in seconds, as kube-apiserver has them.
const (
	MinExpirationSeconds     = 10 * 60
	DefaultExpirationSeconds = 60 * 60
	MaxExpirationSeconds     = 1 << 32

	// WarnOnlyExpirationSeconds is the expiration the ServiceAccount
	// admission plugin asks for in projected volumes; with
	// Config.ExtendExpiration such pod-bound tokens are issued for
	// MaxExtendedExpiration instead and carry "warnafter".
	WarnOnlyExpirationSeconds = 60*60 + 7
	// DefaultMaxExtendedExpiration is kube-apiserver's extended lifetime.
	DefaultMaxExtendedExpiration = 365 * 24 * time.Hour
)

// Config is the service account part of the server's flags.
type Config struct {
	// Issuers is --service-account-issuer: the first issues, all verify.
	Issuers []string
	// APIAudiences is --api-audiences; empty means the first issuer.
	APIAudiences []string
	// MaxExpiration is --service-account-max-token-expiration; zero
	// means no cap beyond MaxExpirationSeconds.
	MaxExpiration time.Duration
	// ExtendExpiration is --service-account-extend-token-expiration
	// (kube-apiserver's default is true).
	ExtendExpiration bool
	// MaxExtendedExpiration is how long extended tokens live; zero means
	// DefaultMaxExtendedExpiration.
	MaxExtendedExpiration time.Duration
	// Legacy also accepts secret-based tokens (issuer LegacyIssuer).
	Legacy bool
}

// Validate reports every problem, with kube-apiserver's messages.
func (c Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if len(c.Issuers) == 0 {
		add("service-account-issuer is a required flag")
	}
	seen := map[string]bool{}
	for _, iss := range c.Issuers {
		if strings.Contains(iss, ":") {
			if _, err := url.Parse(iss); err != nil {
				add("service-account-issuer %q contained a ':' but was not a valid URL: %v", iss, err)
				continue
			}
		}
		if iss == "" {
			add("service-account-issuer should not be an empty string")
			continue
		}
		if seen[iss] {
			add("service-account-issuer %q is already specified", iss)
		}
		seen[iss] = true
	}
	if c.MaxExpiration != 0 && (c.MaxExpiration < time.Hour || c.MaxExpiration > MaxExpirationSeconds*time.Second) {
		add("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds")
	}
	if c.MaxExtendedExpiration < 0 {
		add("the maximum extended expiration must not be negative")
	}
	return errors.Join(errs...)
}

// apiAudiences defaults the API audiences to the first issuer, as
// kube-apiserver does.
func (c Config) apiAudiences() []string {
	if len(c.APIAudiences) > 0 {
		return append([]string(nil), c.APIAudiences...)
	}
	if len(c.Issuers) > 0 && c.Issuers[0] != "" {
		return []string{c.Issuers[0]}
	}
	return nil
}
