package authzconfig

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// DefaultReloadInterval is how often the file is polled, besides the
// file events (kube-apiserver's interval).
const DefaultReloadInterval = time.Minute

// Controller serves the chain built from an --authorization-config file
// and, while Run runs, rebuilds it when the file changes. It implements
// authorizer.Authorizer and authorizer.RuleResolver by delegating to the
// chain in force.
type Controller struct {
	path     string
	deps     Deps
	metrics  *metrics
	idHash   string
	interval time.Duration
	log      *slog.Logger
	// fixed are the non-webhook types of the start-up configuration: each
	// must stay, and RBAC or Node may not be added.
	fixed sets.Set[string]

	current atomic.Pointer[chain]
	// watching is closed once Run watches the file (or gave up trying).
	watching     chan struct{}
	watchingOnce sync.Once

	mu       sync.Mutex // serialises checks
	lastHash [sha256.Size]byte
	last     *Config
}

var (
	_ authorizer.Authorizer   = (*Controller)(nil)
	_ authorizer.RuleResolver = (*Controller)(nil)
)

// NewController builds the chain for cfg, the configuration loaded from
// path at start-up (nil: load it now), and returns the controller serving
// it. Call Run to follow changes of the file.
func NewController(path string, cfg *Config, deps Deps) (*Controller, error) {
	if cfg == nil {
		var err error
		if cfg, err = Load(path); err != nil {
			return nil, err
		}
	}
	m, err := newMetrics(deps.Registerer)
	if err != nil {
		return nil, err
	}
	first, err := build(cfg, deps, m)
	if err != nil {
		return nil, err
	}
	log := deps.Logger
	if log == nil {
		log = slog.Default()
	}
	interval := deps.ReloadInterval
	if interval <= 0 {
		interval = DefaultReloadInterval
	}
	c := &Controller{
		path:     path,
		deps:     deps,
		metrics:  m,
		idHash:   hashOf([]byte(deps.APIServerID)),
		interval: interval,
		log:      log.With("config", path),
		fixed:    sets.New[string](),
		watching: make(chan struct{}),
		lastHash: sha256.Sum256(cfg.data),
		last:     cfg,
	}
	for _, a := range cfg.authorizers {
		if a.Type != TypeWebhook {
			c.fixed.Insert(a.Type)
		}
	}
	c.current.Store(first)
	m.applied(c.idHash, cfg.data)
	return c, nil
}

// Authorize asks the chain in force.
func (c *Controller) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	return c.current.Load().Authorize(ctx, a)
}

// ConditionsAwareAuthorize implements authorizer.Authorizer.
func (c *Controller) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return c.current.Load().ConditionsAwareAuthorize(ctx, a)
}

// EvaluateConditions implements authorizer.Authorizer.
func (c *Controller) EvaluateConditions(ctx context.Context, d authorizer.ConditionsAwareDecision, data authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return c.current.Load().EvaluateConditions(ctx, d, data)
}

// RulesFor implements authorizer.RuleResolver.
func (c *Controller) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return c.current.Load().RulesFor(ctx, u, namespace)
}

// Run follows the file until ctx ends: on every event in its directory
// (which also catches atomic renames and ConfigMap symlink swaps) and
// every interval, the file is checked. If file events cannot be watched,
// polling alone goes on.
func (c *Controller) Run(ctx context.Context) {
	var events <-chan fsnotify.Event
	var watchErrs <-chan error
	if w, err := fsnotify.NewWatcher(); err != nil {
		c.log.Warn("cannot watch the authorization config; polling only", "err", err)
	} else {
		defer w.Close()
		if err := w.Add(filepath.Dir(c.path)); err != nil {
			c.log.Warn("cannot watch the authorization config; polling only", "err", err)
		} else {
			events, watchErrs = w.Events, w.Errors
		}
	}
	c.watchingOnce.Do(func() { close(c.watching) })
	tick := time.NewTicker(c.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
		case err, ok := <-watchErrs:
			if !ok {
				watchErrs = nil
				continue
			}
			c.log.Warn("watching the authorization config", "err", err)
			continue
		}
		if err := c.check(); err != nil {
			c.log.Error("authorization config not reloaded; the previous one stays in force", "err", err)
		}
	}
}

// check reloads the file if its content changed. Content seen before
// (even if it failed) is not tried again; a configuration equal to the one
// in force is not rebuilt. It returns why a change was not applied.
func (c *Controller) check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, err := os.ReadFile(c.path)
	if err != nil {
		return c.failed(fmt.Errorf("%w: %w", ErrReload, err))
	}
	sum := sha256.Sum256(data)
	if sum == c.lastHash {
		return nil
	}
	c.lastHash = sum
	cfg, err := Parse(data)
	if err != nil {
		return c.failed(fmt.Errorf("%w: %w", ErrReload, err))
	}
	if err := c.checkTypes(cfg); err != nil {
		return c.failed(err)
	}
	if reflect.DeepEqual(cfg.authorizers, c.last.authorizers) {
		return nil
	}
	next, err := build(cfg, c.deps, c.metrics)
	if err != nil {
		return c.failed(fmt.Errorf("%w: %w", ErrReload, err))
	}
	c.current.Store(next)
	c.last = cfg
	c.metrics.reloaded("success", c.idHash, time.Now())
	c.metrics.applied(c.idHash, data)
	c.log.Info("authorization config reloaded")
	return nil
}

func (c *Controller) failed(err error) error {
	c.metrics.reloaded("failure", c.idHash, time.Now())
	return err
}

// checkTypes enforces that the non-webhook authorizers of the start-up
// configuration stay, and that RBAC and Node, built once at start-up, are
// not added. Messages are kube-apiserver's.
func (c *Controller) checkTypes(cfg *Config) error {
	seen := sets.New[string]()
	for _, a := range cfg.authorizers {
		if a.Type == TypeWebhook {
			continue
		}
		seen.Insert(a.Type)
		if (a.Type == TypeRBAC || a.Type == TypeNode) && !c.fixed.Has(a.Type) {
			return fmt.Errorf("%w: authorizer type %s is not allowed if it was not enabled at initial server startup", ErrReload, a.Type)
		}
	}
	if missing := c.fixed.Difference(seen); missing.Len() > 0 {
		return fmt.Errorf("%w: missing required types: %v", ErrReload, sets.List(missing))
	}
	return nil
}
