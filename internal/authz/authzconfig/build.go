package authzconfig

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Deps is what the server supplies to build a chain.
type Deps struct {
	// RBAC and Node are the server's authorizers, built once at start-up
	// and reused by every chain; each is required when the configuration
	// names its type. Only Authorize is called (a full
	// authorizer.Authorizer will do). If they implement
	// authorizer.RuleResolver, their rules are listed by the chain's
	// RulesFor.
	RBAC authorizer.UnconditionalAuthorizer
	Node authorizer.UnconditionalAuthorizer
	// ABAC is the --authorization-policy-file authorizer, read once at
	// start-up as kube-apiserver reads it.
	ABAC authorizer.UnconditionalAuthorizer
	// Registerer receives the authorization metrics; nil keeps them
	// unexported.
	Registerer prometheus.Registerer
	// APIServerID identifies this server in the reload metrics (hashed).
	APIServerID string
	// Logger receives webhook failures and reload outcomes; nil means
	// slog.Default().
	Logger *slog.Logger
	// WebhookBackoff overrides kube-apiserver's webhook retry schedule;
	// nil keeps it.
	WebhookBackoff *wait.Backoff
	// ReloadInterval is how often the Controller polls the file; zero
	// means one minute.
	ReloadInterval time.Duration
}

// Build makes the chain for cfg: the system:masters rule, then the
// configured authorizers in order. The result also implements
// authorizer.RuleResolver. The server treats NoOpinion as forbidden.
func Build(cfg *Config, deps Deps) (authorizer.Authorizer, error) {
	m, err := newMetrics(deps.Registerer)
	if err != nil {
		return nil, err
	}
	return build(cfg, deps, m)
}

func build(cfg *Config, deps Deps, m *metrics) (*chain, error) {
	if cfg == nil || len(cfg.authorizers) == 0 {
		return nil, fmt.Errorf("%w: at least one authorization mode must be passed", ErrInvalid)
	}
	log := deps.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &chain{links: make([]link, 0, len(cfg.authorizers)+1)}
	c.links = append(c.links, link{name: privilegedName, az: privileged{}})
	for i, a := range cfg.authorizers {
		l := link{
			name:    a.Name,
			allowed: lazyCounter{m.decisions, []string{a.Type, a.Name, "allowed"}},
			denied:  lazyCounter{m.decisions, []string{a.Type, a.Name, "denied"}},
		}
		switch a.Type {
		case TypeAlwaysAllow:
			l.az, l.rules = alwaysAllow{}, alwaysAllow{}
		case TypeAlwaysDeny:
			l.az, l.rules = alwaysDeny{}, alwaysDeny{}
		case TypeRBAC, TypeNode, TypeABAC:
			az := map[string]authorizer.UnconditionalAuthorizer{TypeRBAC: deps.RBAC, TypeNode: deps.Node, TypeABAC: deps.ABAC}[a.Type]
			if az == nil {
				return nil, fmt.Errorf("%w: authorizer type %s is configured but the server has no %s authorizer", ErrMissingAuthorizer, a.Type, a.Type)
			}
			l.az = az
			l.rules, _ = az.(authorizer.RuleResolver)
		case TypeWebhook:
			w, err := newWebhook(a.Name, a.Webhook, cfg.matchers[i], deps, m, log)
			if err != nil {
				return nil, err
			}
			l.az, l.rules = w, w
		default:
			return nil, fmt.Errorf("%w: unknown authorization mode %s specified", ErrInvalid, a.Type)
		}
		c.links = append(c.links, l)
	}
	return c, nil
}
