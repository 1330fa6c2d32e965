package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/clock"
)

// DefaultTimeout is the attempt timeout when Config.Timeout is zero
// (kube-apiserver's webhook client default).
const DefaultTimeout = 30 * time.Second

// DefaultBackoff is kube-apiserver's retry schedule for authorization
// webhooks: up to five attempts, 500ms apart and growing by half each time.
func DefaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// Config describes one webhook authorizer.
type Config struct {
	// Name identifies the webhook in metrics and logs.
	Name string
	// KubeConfigFile locates the webhook and holds the credentials to
	// reach it; its current context is used.
	KubeConfigFile string
	// Version of the SubjectAccessReview sent and expected: "v1" or
	// "v1beta1".
	Version string
	// Timeout of one attempt; zero means DefaultTimeout.
	Timeout time.Duration
	// AuthorizedTTL and UnauthorizedTTL are how long allowed and other
	// answers are cached; zero disables that half of the cache.
	AuthorizedTTL   time.Duration
	UnauthorizedTTL time.Duration
	// FailurePolicy decides when the webhook fails or a match condition
	// errs: "NoOpinion" or "Deny".
	FailurePolicy string
	// Matcher holds the compiled match conditions; nil matches every
	// request.
	Matcher *Matcher
	// Backoff between attempts; Steps is the number of attempts. Nil means
	// DefaultBackoff.
	Backoff *wait.Backoff
	// Metrics records evaluations; nil records nothing.
	Metrics *Metrics
	// Clock ages the cache; nil means the real clock.
	Clock clock.PassiveClock
	// Logger receives failures; nil means slog.Default().
	Logger *slog.Logger
}

// Authorizer is a webhook authorizer. It is safe for concurrent use.
type Authorizer struct {
	name     string
	client   *client
	timeout  time.Duration
	onError  authorizer.Decision
	matcher  *Matcher
	cache    *decisionCache
	attempts int
	backoff  wait.Backoff
	metrics  *Metrics
	log      *slog.Logger
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New loads the kubeconfig and returns the authorizer.
func New(cfg Config) (*Authorizer, error) {
	var onError authorizer.Decision
	switch cfg.FailurePolicy {
	case apiserverv1.FailurePolicyNoOpinion:
		onError = authorizer.DecisionNoOpinion
	case apiserverv1.FailurePolicyDeny:
		onError = authorizer.DecisionDeny
	default:
		return nil, fmt.Errorf("%w: unknown failurePolicy %q", ErrConfig, cfg.FailurePolicy)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c, err := newClient(cfg.KubeConfigFile, cfg.Version, timeout)
	if err != nil {
		return nil, err
	}
	backoff := DefaultBackoff()
	if cfg.Backoff != nil {
		backoff = *cfg.Backoff
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Authorizer{
		name:     cfg.Name,
		client:   c,
		timeout:  timeout,
		onError:  onError,
		matcher:  cfg.Matcher,
		cache:    newDecisionCache(clk, cfg.AuthorizedTTL, cfg.UnauthorizedTTL),
		attempts: max(backoff.Steps, 1),
		backoff:  backoff,
		metrics:  cfg.Metrics,
		log:      log.With("authorizer", "Webhook", "name", cfg.Name),
	}, nil
}

// Authorize asks the webhook (or the cache) about the request.
func (w *Authorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	spec := SpecFor(a)
	if w.matcher != nil {
		start := time.Now()
		ok, failed, err := w.matcher.match(ctx, &spec)
		w.metrics.matchEvaluated(w.name, time.Since(start), failed, !ok && err == nil)
		if err != nil {
			return w.onError, "", err
		}
		if !ok {
			return authorizer.DecisionNoOpinion, "", nil
		}
	}
	useCache := cacheable(a)
	var key string
	if useCache {
		key = cacheKey(&spec)
		if st, ok := w.cache.get(key); ok {
			return decide(st)
		}
	}
	st, err := w.call(ctx, &spec)
	if err != nil {
		return w.onError, "", err
	}
	if useCache {
		w.cache.add(key, st)
	}
	return decide(st)
}

// decide turns the webhook's answer into a decision.
func decide(st authorizationv1.SubjectAccessReviewStatus) (authorizer.Decision, string, error) {
	switch {
	case st.Denied && st.Allowed:
		return authorizer.DecisionDeny, st.Reason, ErrAllowedAndDenied
	case st.Denied:
		return authorizer.DecisionDeny, st.Reason, nil
	case st.Allowed:
		return authorizer.DecisionAllow, st.Reason, nil
	default:
		return authorizer.DecisionNoOpinion, st.Reason, nil
	}
}

// call sends the review, retrying what kube-apiserver retries.
func (w *Authorizer) call(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, error) {
	backoff := w.backoff
	var (
		st     authorizationv1.SubjectAccessReviewStatus
		err    error
		result string
	)
	for attempt := 1; ; attempt++ {
		start := time.Now()
		// The attempt's timeout is the HTTP client's (as client-go's),
		// which words its errors "(Client.Timeout exceeded ...)".
		st, err = w.client.review(ctx, spec)
		result = resultLabel(ctx, err)
		w.metrics.evaluation(w.name, result, time.Since(start))
		if err == nil {
			return st, nil
		}
		if attempt >= w.attempts || ctx.Err() != nil || !retryable(err) {
			break
		}
		if sleep(ctx, backoff.Step()) != nil {
			break
		}
	}
	w.log.Error("webhook authorizer request failed", "err", err)
	if w.onError == authorizer.DecisionNoOpinion && ctx.Err() == nil {
		w.metrics.failedOpen(w.name, result)
	}
	// The error is the client's, unwrapped, as kube-apiserver reports it
	// (in a 500 when no later authorizer allows).
	return st, err
}

// resultLabel classifies an attempt as kube-apiserver's metrics do.
func resultLabel(ctx context.Context, err error) string {
	var se *statusError
	switch {
	case err == nil:
		return "success"
	case ctx.Err() != nil:
		return "canceled"
	case utilnet.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &se) && se.code == 504):
		return "timeout"
	default:
		return "error"
	}
}

// ConditionsAwareAuthorize implements authorizer.Authorizer; webhooks
// here give unconditional answers only.
func (w *Authorizer) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(w.Authorize(ctx, a))
}

// EvaluateConditions implements authorizer.Authorizer: there are never
// conditions to evaluate, so it fails closed.
func (w *Authorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor implements authorizer.RuleResolver: a webhook cannot list
// rules, so the answer is incomplete.
func (w *Authorizer) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return nil, nil, true, ErrRulesNotSupported
}
