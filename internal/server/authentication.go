package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/anonymous"
	"github.com/portcullis/portcullis/internal/authn/authnconfig"
	"github.com/portcullis/portcullis/internal/authn/cache"
	"github.com/portcullis/portcullis/internal/authn/tokenfile"
)

// authentication is the assembled authentication stage.
type authentication struct {
	request authn.Authenticator
	// tokens answers TokenReviews: every token authenticator, cached.
	tokens authn.Token
	// run keeps JWT issuers and the configuration file current.
	run func(ctx context.Context)
	// health reports whether every JWT issuer has its keys.
	health func() error
}

// newAuthentication builds kube-apiserver's authenticator order: client
// certificates, then bearer tokens (token file, service accounts, JWT
// issuers, behind one cache), then anonymous where allowed.
func newAuthentication(cfg Config, x509 authn.Authenticator, serviceAccounts authn.Token, reg prometheus.Registerer, log *slog.Logger) (*authentication, error) {
	var fileCfg *authnconfig.Config
	if cfg.AuthenticationConfigFile != "" {
		c, err := authnconfig.Load(cfg.AuthenticationConfigFile, authnconfig.LoadOptions{DisallowedIssuers: cfg.ServiceAccountIssuers})
		if err != nil {
			return nil, fmt.Errorf("--authentication-config: %w", err)
		}
		fileCfg = c
	}
	host, _ := os.Hostname()
	jwts, err := authnconfig.NewAuthenticator(fileCfg, authnconfig.Options{
		DisallowedIssuers: cfg.ServiceAccountIssuers,
		APIServerID:       "portcullis-" + host,
		Registerer:        reg,
		Logger:            log,
	})
	if err != nil {
		return nil, fmt.Errorf("--authentication-config: %w", err)
	}
	anon, err := anonymous.Resolve(cfg.AnonymousAuth, cfg.AnonymousAuthSet, fileCfg.Anonymous())
	if err != nil {
		return nil, err
	}
	tokens := authn.TokenUnion{}
	if cfg.TokenAuthFile != "" {
		tf, err := tokenfile.Load(cfg.TokenAuthFile, log)
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		tokens = append(tokens, tf)
	}
	tokens = append(tokens, serviceAccounts, jwts)
	cached := cache.New(tokens, cache.Options{})
	return &authentication{
		request: anonymous.WithFallback(authn.Union{x509, authn.Bearer{Token: cached}}, anon),
		tokens:  cached,
		run:     jwts.Run,
		health:  jwts.HealthCheck,
	}, nil
}

// serverID identifies this server in reload metrics (hashed there).
func serverID() string {
	host, _ := os.Hostname()
	return "portcullis-" + host
}
