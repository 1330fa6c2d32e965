package policystatus

import (
	"context"
	"log/slog"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// Manager is the field manager of the status writes, as in kube-apiserver.
const Manager = "validatingadmissionpolicy-status-controller"

// Checker type-checks a policy (policy.TypeChecker).
type Checker interface {
	Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning
}

// StatusWriter writes a status through the API (the REST handler's
// in-process client).
type StatusWriter interface {
	ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Controller writes the type checking status of policies.
type Controller struct {
	objs  *objects.Objects
	in    *informer.Informer
	check Checker
	w     StatusWriter
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]*admissionregistrationv1.ValidatingAdmissionPolicy
	// order keeps names in arrival order; a name is in it once.
	order []string
	wake  chan struct{}
}

var policies = schema.GroupVersionResource{Group: admissionregistrationv1.GroupName, Version: "v1", Resource: "validatingadmissionpolicies"}

// New returns the controller over the policies in objs; Run starts it.
func New(objs *objects.Objects, check Checker, w StatusWriter, log *slog.Logger) *Controller {
	c := &Controller{objs: objs, check: check, w: w, log: log,
		pending: map[string]*admissionregistrationv1.ValidatingAdmissionPolicy{}, wake: make(chan struct{}, 1)}
	res, _ := objs.Lookup(policies)
	c.in = informer.New(objs.Store(), res, objs.Decode, informer.HandlerFuncs{UpsertFunc: c.upsert, DeleteFunc: c.delete}, log)
	return c
}

// upsert queues a policy whose status is behind its generation.
func (c *Controller) upsert(obj runtime.Object) {
	p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if !ok || p.Generation <= p.Status.ObservedGeneration {
		return
	}
	c.enqueue(p)
}

func (c *Controller) delete(obj runtime.Object) {
	if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok {
		c.mu.Lock()
		delete(c.pending, p.Name)
		c.mu.Unlock()
	}
}

func (c *Controller) enqueue(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
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
func (c *Controller) next() *admissionregistrationv1.ValidatingAdmissionPolicy {
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

// Run follows the policies and writes statuses until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.in.Run(ctx) })
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
		err := c.write(ctx, p)
		if err == nil || apierrors.IsNotFound(err) {
			// Written, or deleted since: nothing more to do.
			delete(backoff, p.Name)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		delay := min(max(2*backoff[p.Name], 100*time.Millisecond), time.Minute)
		backoff[p.Name] = delay
		c.log.Warn("writing policy status failed", "policy", p.Name, "retry", delay, "err", err)
		wg.Go(func() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
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

// write records the type checking of p on the stored policy, leaving the
// rest of its status (conditions) alone.
func (c *Controller) write(ctx context.Context, p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	tc := &admissionregistrationv1.TypeChecking{ExpressionWarnings: c.check.Check(p)}
	obj, err := c.objs.Get(ctx, policies, "", p.Name)
	if err != nil {
		return err
	}
	stored := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	// As kube-controller-manager's server-side apply of an empty
	// typeChecking leaves it: warnings it wrote before go, and with them
	// the emptied typeChecking; otherwise an empty one stays.
	if len(tc.ExpressionWarnings) == 0 && stored.Status.TypeChecking != nil && len(stored.Status.TypeChecking.ExpressionWarnings) > 0 {
		tc = nil
	}
	stored.Status.ObservedGeneration = p.Generation
	stored.Status.TypeChecking = tc
	_, err = c.w.ApplyStatus(ctx, stored, Manager)
	return err
}
