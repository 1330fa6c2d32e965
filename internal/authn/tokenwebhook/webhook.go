package tokenwebhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/utils/clock"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/authn"
)

const (
	// DefaultVersion is --authentication-token-webhook-version's default.
	DefaultVersion = "v1beta1"
	// DefaultCacheTTL is --authentication-token-webhook-cache-ttl's
	// default.
	DefaultCacheTTL = 2 * time.Minute
)

// Clock is the time the authenticator reads: Now ages cached answers,
// After waits between attempts.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Config describes the webhook token authenticator.
type Config struct {
	// KubeconfigFile is --authentication-token-webhook-config-file: its
	// current context names the webhook and holds the credentials to
	// reach it.
	KubeconfigFile string
	// Version is --authentication-token-webhook-version, the TokenReview
	// version sent and expected: "v1" or "v1beta1" (DefaultVersion).
	Version string
	// CacheTTL is --authentication-token-webhook-cache-ttl: how long
	// answers (authenticated or not, but not errors) are kept. Zero or
	// negative keeps nothing.
	CacheTTL time.Duration
	// Audiences are the server's own audiences (--api-audiences): sent
	// when the request names none, and assumed for answers that name
	// none.
	Audiences []string
	// Backoff between attempts; Steps is the number of attempts. Nil
	// means DefaultBackoff.
	Backoff *wait.Backoff
	// Clock: nil means the real clock.
	Clock Clock
	// Registerer receives the token cache metrics; nil records none.
	Registerer prometheus.Registerer
	// Logger receives webhook failures; nil means slog.Default().
	Logger *slog.Logger
}

// Response is what an authenticated token stands for.
type Response struct {
	User user.Info
	// Audiences the token is valid for among those asked for; nil when
	// no audience was asked for (or configured).
	Audiences []string
}

// Authenticator is the webhook token authenticator, its cache included.
// It is safe for concurrent use.
type Authenticator struct {
	reviewer reviewer
	implicit []string
	backoff  wait.Backoff
	clock    Clock
	cache    *answerCache
	metrics  *Metrics
	log      *slog.Logger
}

var _ authn.Token = (*Authenticator)(nil)

// New loads the kubeconfig and returns the authenticator. Its errors
// match ErrConfig and read as kube-apiserver's.
func New(cfg Config) (*Authenticator, error) {
	if cfg.KubeconfigFile == "" {
		return nil, fmt.Errorf("%w: no kubeconfig file given", ErrConfig)
	}
	backoff := DefaultBackoff()
	if cfg.Backoff != nil {
		backoff = *cfg.Backoff
	}
	if backoff.Steps <= 0 {
		return nil, mark(ErrConfig, fmt.Errorf("number of webhook retry attempts must be greater than 0, but is: %d", backoff.Steps))
	}
	// kube-apiserver reads the file before it looks at the version.
	restCfg, err := loadKubeconfig(cfg.KubeconfigFile)
	if err != nil {
		return nil, mark(ErrConfig, err)
	}
	rv, err := newReviewer(restCfg, cfg.Version)
	if err != nil {
		return nil, mark(ErrConfig, err)
	}
	metrics, err := NewMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Authenticator{
		reviewer: rv,
		implicit: append([]string(nil), cfg.Audiences...),
		backoff:  backoff,
		clock:    clk,
		cache:    newAnswerCache(cfg.CacheTTL, clk),
		metrics:  metrics,
		log:      log.With("authenticator", "webhook"),
	}, nil
}

// AuthenticateToken implements authn.Token.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (user.Info, bool, error) {
	resp, ok, err := a.Authenticate(ctx, token)
	return resp.User, ok, err
}

// Authenticate is AuthenticateToken with the audiences the token was
// found valid for, which a TokenReview answers with.
func (a *Authenticator) Authenticate(ctx context.Context, token string) (Response, bool, error) {
	rec := a.cached(ctx, token)
	if !rec.ok || rec.err != nil {
		return Response{}, false, rec.err
	}
	return rec.resp, true, nil
}

// authenticate asks the webhook (never the cache). The audiences asked
// for are the request's, or the server's own; with any, the answer must
// share one with them, read from status.audiences or, when the webhook
// names none, from the server's own.
func (a *Authenticator) authenticate(ctx context.Context, token string) record {
	want := authn.AudiencesFrom(ctx)
	if len(want) == 0 {
		want = a.implicit
	}
	st, err := a.call(ctx, authenticationv1.TokenReviewSpec{Token: token, Audiences: want})
	if err != nil {
		// An outage or a bad configuration: worth a log line, as
		// kube-apiserver writes one.
		a.log.Error("Failed to make webhook authenticator request", "err", err)
		return record{err: mark(ErrWebhook, err)}
	}
	var auds []string
	if len(want) > 0 {
		got := a.implicit
		if len(st.Audiences) > 0 {
			got = st.Audiences
		}
		// The audience check comes first, as kube-apiserver's: a token
		// for someone else is not recognised, whatever else is said.
		if auds = intersect(want, got); len(auds) == 0 {
			return record{}
		}
	}
	if !st.Authenticated {
		if st.Error != "" {
			return record{err: mark(ErrRejected, errors.New(st.Error))}
		}
		return record{}
	}
	u := &user.DefaultInfo{Name: st.User.Username, UID: st.User.UID, Groups: st.User.Groups}
	if st.User.Extra != nil {
		u.Extra = make(map[string][]string, len(st.User.Extra))
		for k, v := range st.User.Extra {
			u.Extra[k] = v
		}
	}
	return record{ok: true, resp: Response{User: u, Audiences: auds}}
}

// intersect is want's entries that got has, in want's order.
func intersect(want, got []string) []string {
	out := []string{}
	for _, w := range want {
		for _, g := range got {
			if w == g {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// call sends the review until an attempt succeeds, fails in a way not
// worth retrying, or the attempts run out; the error is the last
// attempt's, as kube-apiserver returns it.
func (a *Authenticator) call(ctx context.Context, spec authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, error) {
	b := a.backoff
	var last error
attempts:
	for b.Steps > 0 {
		if ctx.Err() != nil {
			break
		}
		st, err := a.reviewer.review(ctx, spec)
		if err == nil {
			return st, nil
		}
		last = err
		if !retryable(err) || b.Steps == 1 {
			break
		}
		select {
		case <-ctx.Done():
			break attempts
		case <-a.clock.After(b.Step()):
		}
	}
	if last == nil {
		// Out of time before the first attempt.
		last = fmt.Errorf("webhook call failed: %s", ctx.Err())
	}
	return authenticationv1.TokenReviewStatus{}, last
}
