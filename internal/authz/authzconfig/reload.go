package authzconfig

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/configfile"
)

// DefaultReloadInterval is how often the file is polled, besides the
// file events (kube-apiserver's interval).
const DefaultReloadInterval = time.Minute

// Controller serves the chain built from an --authorization-config file
// and, while Run runs, rebuilds it when the file changes. It implements
// authorizer.Authorizer and authorizer.RuleResolver by delegating to the
// chain in force.
type Controller struct {
	deps    Deps
	metrics *metrics
	reloads *configfile.Metrics
	watcher *configfile.Watcher
	// fixed are the non-webhook types of the start-up configuration: each
	// must stay, and RBAC or Node may not be added.
	fixed sets.Set[string]

	current atomic.Pointer[chain]
	// watching is closed once Run watches the file (or gave up trying).
	watching     chan struct{}
	watchingOnce sync.Once

	mu   sync.Mutex // serialises applies
	last *Config

	trackMu sync.Mutex
	tracked string // hash of the content last acted upon
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
	reloads, err := newReloadMetrics(deps)
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
		deps:     deps,
		metrics:  m,
		reloads:  reloads,
		fixed:    sets.New[string](),
		watching: make(chan struct{}),
		last:     cfg,
		tracked:  cfg.hash,
	}
	c.watcher = &configfile.Watcher{
		Path:     path,
		Interval: interval,
		Apply:    c.apply,
		Metrics:  reloads,
		Logger:   log,
		What:     "authorization config",
		Watching: func() { c.watchingOnce.Do(func() { close(c.watching) }) },
	}
	for _, a := range cfg.authorizers {
		if a.Type != TypeWebhook {
			c.fixed.Insert(a.Type)
		}
	}
	c.current.Store(first)
	reloads.Loaded(cfg.hash)
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
	c.trackMu.Lock()
	hash := c.tracked
	c.trackMu.Unlock()
	c.watcher.Run(ctx, hash)
}

// check is one look at the file, as Run takes at every event and poll:
// it reloads the file if its content changed, and returns why a change
// was not applied, as an ErrReload. Content seen before (even if it
// failed) is not tried again. Tests drive reloads with it.
func (c *Controller) check(ctx context.Context) error {
	c.trackMu.Lock()
	defer c.trackMu.Unlock()
	var err error
	c.tracked, err = c.watcher.Check(ctx, c.tracked)
	if err != nil && !errors.Is(err, ErrReload) {
		// The file could not be read.
		return fmt.Errorf("%w: %w", ErrReload, err)
	}
	return err
}

// apply builds the chain of new content and puts it in force. A
// configuration equal to the one in force is not rebuilt.
func (c *Controller) apply(_ context.Context, data []byte, _ string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg, err := Parse(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReload, err)
	}
	if err := c.checkTypes(cfg); err != nil {
		return err
	}
	if reflect.DeepEqual(cfg.authorizers, c.last.authorizers) {
		return configfile.ErrUnchanged
	}
	next, err := build(cfg, c.deps, c.metrics)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReload, err)
	}
	c.current.Store(next)
	c.last = cfg
	return nil
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
		if (a.Type == TypeRBAC || a.Type == TypeNode || a.Type == TypeABAC) && !c.fixed.Has(a.Type) {
			return fmt.Errorf("%w: authorizer type %s is not allowed if it was not enabled at initial server startup", ErrReload, a.Type)
		}
	}
	if missing := c.fixed.Difference(seen); missing.Len() > 0 {
		return fmt.Errorf("%w: missing required types: %v", ErrReload, sets.List(missing))
	}
	return nil
}
