package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/objects"
)

// Manager is the field manager of the elector's Lease writes.
const Manager = "portcullis-leader-election"

// API is the write path the elector uses (rest.Handler's in-process
// client): Create for a Lease that does not exist yet, Apply for a
// guarded replacement of one read with its resourceVersion.
type API interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Elector takes part in one election. Its Run is called by one goroutine
// at a time; IsLeader may be called from any.
type Elector struct {
	objs   *objects.Objects
	api    API
	cfg    Config
	log    *slog.Logger
	status prometheus.Gauge // nil without Config.Metrics

	running atomic.Bool
	leading atomic.Bool

	// What this replica last saw of the Lease and when, by its own clock;
	// only Run's goroutine touches them.
	observed   coordinationv1.LeaseSpec
	observedAt time.Time
	seen       bool
}

// New returns an Elector for cfg, its zero fields defaulted; Run starts it.
func New(objs *objects.Objects, api API, cfg Config) (*Elector, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	e := &Elector{objs: objs, api: api, cfg: cfg,
		log: cfg.Log.With("lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity)}
	if cfg.Metrics != nil {
		vec, err := registerStatus(cfg.Metrics)
		if err != nil {
			return nil, fmt.Errorf("registering leader election metrics: %w", err)
		}
		e.status = vec.WithLabelValues(cfg.Name)
		e.status.Set(0)
	}
	return e, nil
}

// Identity is the holderIdentity this elector writes.
func (e *Elector) Identity() string { return e.cfg.Identity }

// IsLeader reports whether this elector holds the lease: true from its
// acquisition until Run notices the loss (and cancels lead's context).
func (e *Elector) IsLeader() bool { return e.leading.Load() }

// errLeadReturned ends a term in which lead returned by itself.
var errLeadReturned = errors.New("lead returned while leading")

// Run takes part in the election until ctx is done: whenever it holds the
// lease it calls lead, with a context cancelled as soon as the lease may
// be lost or ctx is done, and waits for lead to return before it tries
// again. It returns after lead has returned and, if it still held the
// lease, after releasing it.
func (e *Elector) Run(ctx context.Context, lead func(ctx context.Context)) {
	if !e.running.CompareAndSwap(false, true) {
		e.log.Error("leader election: Run called while already running; ignored")
		return
	}
	defer e.running.Store(false)
	for {
		if !e.acquire(ctx) {
			return
		}
		err := e.lead(ctx, lead)
		if ctx.Err() != nil {
			e.release(ctx)
			return
		}
		if errors.Is(err, errLeadReturned) {
			// Give the work to whoever can do it, and do not spin when
			// lead returns at once.
			e.release(ctx)
			if !e.sleep(ctx, e.cfg.RetryPeriod) {
				return
			}
		}
	}
}

// acquire tries to take the lease until it does (true) or ctx is done
// (false).
func (e *Elector) acquire(ctx context.Context) bool {
	e.log.Info("leader election: trying to acquire the lease")
	for {
		err := e.try(ctx, false)
		if err == nil {
			e.leading.Store(true)
			if e.status != nil {
				e.status.Set(1)
			}
			e.log.Info("leader election: acquired the lease")
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if !errors.Is(err, errHeldByOther) {
			e.log.Warn("leader election: acquiring the lease", "err", err)
		}
		wait := e.cfg.RetryPeriod + time.Duration(rand.Float64()*jitterFactor*float64(e.cfg.RetryPeriod))
		if !e.sleep(ctx, wait) {
			return false
		}
	}
}

// lead runs lead while renewing the lease, and returns why the term
// ended (nil when ctx is done) once lead has returned.
func (e *Elector) lead(ctx context.Context, lead func(ctx context.Context)) error {
	leadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		lead(leadCtx)
	}()
	err := e.renew(ctx, done)
	e.leading.Store(false)
	if e.status != nil {
		e.status.Set(0)
	}
	cancel()
	if err != nil && !errors.Is(err, errLeadReturned) {
		e.log.Warn("leader election: lost the lease", "err", err)
	}
	<-done
	return err
}

// renew renews the lease every RetryPeriod until a renewal fails for
// good, lead returns (done closes) or ctx is done (nil).
func (e *Elector) renew(ctx context.Context, done <-chan struct{}) error {
	last := e.cfg.Clock.Now() // the acquisition was a successful renewal
	timer := e.cfg.Clock.NewTimer(e.cfg.RetryPeriod)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			return errLeadReturned
		case <-timer.C():
		}
		start := e.cfg.Clock.Now()
		left := last.Add(e.cfg.RenewDeadline).Sub(start)
		if left <= 0 {
			return fmt.Errorf("no renewal for %s", e.cfg.RenewDeadline)
		}
		// A hanging call must not carry the term past RenewDeadline.
		tctx, cancel := context.WithTimeout(ctx, left)
		err := e.try(tctx, true)
		cancel()
		switch {
		case err == nil:
			// Observers saw the write at start or later, so their
			// countdown started no earlier than this.
			last = start
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, errHeldByOther):
			return err
		case e.cfg.Clock.Since(last) >= e.cfg.RenewDeadline:
			return fmt.Errorf("no renewal for %s: %w", e.cfg.RenewDeadline, err)
		default:
			e.log.Warn("leader election: renewing the lease", "err", err)
		}
		timer.Reset(e.cfg.RetryPeriod)
	}
}

// sleep waits d by the elector's clock; false when ctx ends first.
func (e *Elector) sleep(ctx context.Context, d time.Duration) bool {
	t := e.cfg.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}
