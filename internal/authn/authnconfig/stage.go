package authnconfig

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/anonymous"
	"github.com/portcullis/portcullis/internal/authn/cache"
	"github.com/portcullis/portcullis/internal/authn/tokenfile"
	"github.com/portcullis/portcullis/internal/authn/tokenwebhook"
)

// Flags are kube-apiserver's authentication flags.
type Flags struct {
	// ConfigFile is --authentication-config.
	ConfigFile string
	// TokenAuthFile is --token-auth-file.
	TokenAuthFile string
	// AnonymousAuth is --anonymous-auth; AnonymousAuthSet records whether
	// it was given, which the configuration file's anonymous field may
	// not be.
	AnonymousAuth    bool
	AnonymousAuthSet bool
	// ServiceAccountIssuers are --service-account-issuer: no JWT
	// authenticator may claim them.
	ServiceAccountIssuers []string
	// OIDC are the --oidc-* flags.
	OIDC OIDCFlags
	// TokenWebhook are the --authentication-token-webhook-* flags.
	TokenWebhook TokenWebhookFlags
	// APIAudiences are the audiences tokens are for without a TokenReview
	// saying otherwise (--api-audiences, else the first issuer).
	APIAudiences []string
}

// TokenWebhookFlags are kube-apiserver's webhook token authenticator
// flags; without a ConfigFile there is none.
type TokenWebhookFlags struct {
	ConfigFile string
	Version    string
	CacheTTL   time.Duration
}

// Stage is the server's authentication.
type Stage struct {
	// Request authenticates requests.
	Request authn.Authenticator
	// Tokens answers TokenReviews: every token authenticator, cached.
	Tokens authn.Token
	jwts   *Authenticator
}

// NewStage builds kube-apiserver's authenticator order: client
// certificates, then bearer tokens (token file, service accounts, JWT
// issuers, behind one cache), then anonymous where allowed.
func NewStage(f Flags, x509 authn.Authenticator, serviceAccounts authn.Token, reg prometheus.Registerer, serverID string, log *slog.Logger) (*Stage, error) {
	if err := f.OIDC.Validate(); err != nil {
		return nil, err
	}
	if f.ConfigFile != "" && f.OIDC.Set {
		return nil, ErrOIDCWithConfigFile
	}
	var fileCfg *Config
	opts := Options{
		DisallowedIssuers: f.ServiceAccountIssuers,
		APIServerID:       serverID,
		Registerer:        reg,
		Logger:            log,
	}
	if f.ConfigFile != "" {
		c, err := Load(f.ConfigFile, LoadOptions{DisallowedIssuers: f.ServiceAccountIssuers})
		if err != nil {
			return nil, fmt.Errorf("--authentication-config: %w", err)
		}
		fileCfg = c
	} else if api, err := f.OIDC.Config(); err != nil {
		return nil, err
	} else if api != nil {
		if fileCfg, err = FromAPI(api, LoadOptions{DisallowedIssuers: f.ServiceAccountIssuers}); err != nil {
			return nil, fmt.Errorf("--oidc-*: %w", err)
		}
		opts.JWT.SigningAlgs = f.OIDC.SigningAlgs
		if len(opts.JWT.SigningAlgs) == 0 {
			opts.JWT.SigningAlgs = []string{"RS256"}
		}
	}
	jwts, err := NewAuthenticator(fileCfg, opts)
	if err != nil {
		return nil, fmt.Errorf("--authentication-config: %w", err)
	}
	anon, err := anonymous.Resolve(f.AnonymousAuth, f.AnonymousAuthSet, fileCfg.Anonymous())
	if err != nil {
		return nil, err
	}
	tokens := authn.TokenUnion{}
	if f.TokenAuthFile != "" {
		tf, err := tokenfile.Load(f.TokenAuthFile, log)
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		tokens = append(tokens, authn.AudienceAgnostic(f.APIAudiences, tf))
	}
	tokens = append(tokens, serviceAccounts, jwts)
	// The webhook comes last, as in kube-apiserver: a token any local
	// authenticator recognises never leaves the server.
	if w := f.TokenWebhook; w.ConfigFile != "" {
		wh, err := tokenwebhook.New(tokenwebhook.Config{KubeconfigFile: w.ConfigFile, Version: w.Version,
			CacheTTL: w.CacheTTL, Audiences: f.APIAudiences, Registerer: reg, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("--authentication-token-webhook-config-file: %w", err)
		}
		tokens = append(tokens, wh)
	}
	cached := cache.New(tokens, cache.Options{})
	return &Stage{
		Request: anonymous.WithFallback(authn.Union{x509, authn.Bearer{Token: cached, Audiences: f.APIAudiences}}, anon),
		Tokens:  cached,
		jwts:    jwts,
	}, nil
}

// Run keeps the JWT issuers' keys and the configuration file current
// until ctx is done.
func (s *Stage) Run(ctx context.Context) { s.jwts.Run(ctx) }

// Health reports whether every JWT issuer has its keys (the
// poststarthook/authentication-config-issuers check of /readyz).
func (s *Stage) Health() error { return s.jwts.HealthCheck() }
