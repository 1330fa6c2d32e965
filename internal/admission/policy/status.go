package policy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// StatusWriter writes status.observedGeneration and status.typeChecking of
// the named policy, leaving the rest of its status (conditions) alone.
type StatusWriter func(ctx context.Context, name string, observedGeneration int64, typeChecking *admissionregistrationv1.TypeChecking) error

// StatusController keeps the type checking status of policies current:
// for every policy whose generation is newer than its
// status.observedGeneration it type-checks the policy and writes the
// result. It is an informer.Handler for policies; Run does the work.
type StatusController struct {
	check *TypeChecker
	write StatusWriter
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]*admissionregistrationv1.ValidatingAdmissionPolicy
	// order keeps names in arrival order; a name is in it once.
	order []string
	wake  chan struct{}
}

// NewStatusController returns a controller; log may be nil.
func NewStatusController(check *TypeChecker, write StatusWriter, log *slog.Logger) *StatusController {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &StatusController{check: check, write: write, log: log,
		pending: map[string]*admissionregistrationv1.ValidatingAdmissionPolicy{}, wake: make(chan struct{}, 1)}
}

// Upsert queues a policy whose status is behind its generation.
func (c *StatusController) Upsert(obj runtime.Object) {
	p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if !ok || p == nil || p.Generation <= p.Status.ObservedGeneration {
		return
	}
	c.enqueue(p)
}

// Delete forgets a policy.
func (c *StatusController) Delete(obj runtime.Object) {
	if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok && p != nil {
		c.mu.Lock()
		delete(c.pending, p.Name)
		c.mu.Unlock()
	}
}

func (c *StatusController) enqueue(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	c.mu.Lock()
	if _, queued := c.pending[p.Name]; !queued {
		c.order = append(c.order, p.Name)
	}
	c.pending[p.Name] = p
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued policy.
func (c *StatusController) next() *admissionregistrationv1.ValidatingAdmissionPolicy {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.order) > 0 {
		name := c.order[0]
		c.order = c.order[1:]
		if p, ok := c.pending[name]; ok {
			delete(c.pending, name)
			return p
		}
	}
	return nil
}

// Run writes statuses until ctx is cancelled. A failed write is retried
// with a growing delay, unless a newer version of the policy arrived.
func (c *StatusController) Run(ctx context.Context) {
	backoff := map[string]time.Duration{}
	for {
		p := c.next()
		if p == nil {
			select {
			case <-ctx.Done():
				return
			case <-c.wake:
			}
			continue
		}
		tc := &admissionregistrationv1.TypeChecking{ExpressionWarnings: c.check.Check(p)}
		err := c.write(ctx, p.Name, p.Generation, tc)
		if err == nil {
			delete(backoff, p.Name)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if apierrors.IsNotFound(err) {
			// Deleted since: nothing to write.
			delete(backoff, p.Name)
			continue
		}
		delay := min(max(2*backoff[p.Name], 100*time.Millisecond), time.Minute)
		backoff[p.Name] = delay
		c.log.Warn("writing policy status failed", "policy", p.Name, "retry", delay, "err", err)
		time.AfterFunc(delay, func() {
			if ctx.Err() != nil {
				return
			}
			c.mu.Lock()
			_, newer := c.pending[p.Name]
			c.mu.Unlock()
			if !newer {
				c.enqueue(p)
			}
		})
	}
}
