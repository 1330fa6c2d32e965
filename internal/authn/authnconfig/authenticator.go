package authnconfig

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/jwt"
	"github.com/portcullis/portcullis/internal/configfile"
)

// Options are what the authenticator needs besides the configuration.
type Options struct {
	// DisallowedIssuers are the --service-account-issuer values, which a
	// reloaded file may not use either.
	DisallowedIssuers []string
	// APIServerID identifies this server in the reload metrics (hashed).
	APIServerID string
	// Registerer receives the reload metrics; nil records them nowhere.
	Registerer prometheus.Registerer
	// Logger receives reload outcomes and issuer problems. The file's
	// content is never logged, only its hash. Default slog.Default().
	Logger *slog.Logger
	// JWT tunes the JWT authenticators (timeouts, token size).
	JWT jwt.Options
	// PollInterval is how often the file is re-read besides file events.
	// Default 1m, as kube-apiserver.
	PollInterval time.Duration
	// UpdateTimeout is how long the issuers of a reloaded file have to
	// answer before the reload is abandoned (and retried later). Default
	// 1m, as kube-apiserver.
	UpdateTimeout time.Duration
	// RetireAfter is how long the previous authenticators keep running
	// after a reload, for requests already using them. Default 1m.
	RetireAfter time.Duration
	// Now is the clock of the metrics. Default time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.JWT.Logger == nil {
		o.JWT.Logger = o.Logger
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Minute
	}
	if o.UpdateTimeout <= 0 {
		o.UpdateTimeout = time.Minute
	}
	if o.RetireAfter <= 0 {
		o.RetireAfter = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Authenticator is the token authenticator of an AuthenticationConfiguration
// file: its JWT authenticators, swapped atomically when the file changes.
type Authenticator struct {
	opts    Options
	path    string
	initial *Config
	metrics *configfile.Metrics

	cur     atomic.Pointer[generation]
	running atomic.Bool
}

var _ authn.Token = (*Authenticator)(nil)

// generation is the authenticators built from one version of the file.
type generation struct {
	cfg    *Config
	set    *jwt.Set
	cancel context.CancelFunc // set when started
}

// NewAuthenticator builds the JWT authenticators of cfg. It does no I/O:
// Run contacts the issuers (retrying those that are down) and, when cfg
// came from a file (Load), watches the file and applies changes. A nil cfg
// gives an authenticator that recognises no token.
func NewAuthenticator(cfg *Config, opts Options) (*Authenticator, error) {
	opts = opts.withDefaults()
	if cfg == nil {
		cfg = &Config{api: &apiserverv1.AuthenticationConfiguration{}}
	}
	// A second Authenticator on the same registry (a restart within one
	// process, tests) shares the collectors already there.
	m, err := configfile.NewMetrics(opts.Registerer, configfile.MetricsOptions{
		Controller:   "authentication_config_controller",
		ReloadsHelp:  "[BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.",
		LastTimeHelp: "[BETA] Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.",
		InfoHelp:     "[ALPHA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.",
		APIServerID:  opts.APIServerID,
		Now:          opts.Now,
	})
	if err != nil {
		return nil, fmt.Errorf("registering authentication config metrics: %w", err)
	}
	if opts.JWT.Observe == nil {
		if opts.JWT.Observe, err = latencyObserver(opts.Registerer); err != nil {
			return nil, err
		}
	}
	a := &Authenticator{opts: opts, path: cfg.path, initial: cfg, metrics: m}
	g, err := a.build(cfg)
	if err != nil {
		return nil, err
	}
	a.cur.Store(g)
	if cfg.hash != "" {
		m.Loaded(cfg.hash)
	}
	return a, nil
}

func (a *Authenticator) build(cfg *Config) (*generation, error) {
	auths := make([]*jwt.Authenticator, 0, len(cfg.jwt))
	for _, c := range cfg.jwt {
		ja, err := jwt.New(c, a.opts.JWT)
		if err != nil {
			return nil, err
		}
		auths = append(auths, ja)
	}
	set, err := jwt.NewSet(auths...)
	if err != nil {
		return nil, err
	}
	return &generation{cfg: cfg, set: set}, nil
}

// AuthenticateToken implements authn.Token with the current configuration.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	return a.cur.Load().set.AuthenticateToken(ctx, token)
}

// Config returns the configuration in use.
func (a *Authenticator) Config() *Config { return a.cur.Load().cfg }

// HealthCheck returns nil when every issuer of the configuration in use
// can verify tokens, and otherwise what is wrong with each that cannot.
func (a *Authenticator) HealthCheck() error { return a.cur.Load().set.HealthCheck() }

// Run contacts the issuers and keeps their keys fresh; for a
// configuration loaded from a file it also watches the file (events plus
// a poll every PollInterval) and applies a changed, valid file atomically,
// keeping the previous configuration when the new one is invalid. It
// blocks until ctx is cancelled; call it once.
func (a *Authenticator) Run(ctx context.Context) {
	if !a.running.CompareAndSwap(false, true) {
		a.opts.Logger.Error("authentication config: Run called twice")
		return
	}
	var wg sync.WaitGroup
	start := func(g *generation) {
		gctx, cancel := context.WithCancel(ctx)
		g.cancel = cancel
		wg.Go(func() { g.set.Run(gctx) })
	}
	start(a.cur.Load())
	if a.path != "" {
		r := &reloader{a: a, start: start}
		r.watch(ctx)
	} else {
		<-ctx.Done()
	}
	wg.Wait()
}

// apply builds, starts and waits for the authenticators of cfg, then
// swaps them in. The previous ones are stopped after RetireAfter.
func (a *Authenticator) apply(ctx context.Context, cfg *Config, start func(*generation)) (retire func(), err error) {
	g, err := a.build(cfg)
	if err != nil {
		return nil, err
	}
	start(g)
	wctx, cancel := context.WithTimeout(ctx, a.opts.UpdateTimeout)
	defer cancel()
	if err := g.set.WaitReady(wctx); err != nil {
		g.cancel()
		return nil, err
	}
	old := a.cur.Swap(g)
	return old.cancel, nil
}

// latencyObserver records apiserver_authentication_jwt_authenticator_latency_seconds
// as kube-apiserver does: one observation per token an issuer's
// authenticator recognised, by result and the sha256 of the issuer URL. A
// second registration on one registry shares the first's histogram.
func latencyObserver(reg prometheus.Registerer) (func(string, bool, time.Duration), error) {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "apiserver_authentication_jwt_authenticator_latency_seconds",
		Help: "[ALPHA] Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).",
		// Prometheus' default buckets from 1ms, as kube-apiserver's.
		Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"result", "jwt_issuer_hash"})
	if reg != nil {
		if err := reg.Register(h); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("registering jwt authenticator metrics: %w", err)
			}
			h = are.ExistingCollector.(*prometheus.HistogramVec)
		}
	}
	return func(issuer string, success bool, d time.Duration) {
		result := "failure"
		if success {
			result = "success"
		}
		h.WithLabelValues(result, fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(issuer)))).Observe(d.Seconds())
	}, nil
}
