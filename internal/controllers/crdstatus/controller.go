package crdstatus

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/crd/definition"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// Manager is the field manager of the status writes: kube-apiserver's
// CRD controllers write through its loopback client, whose user agent
// names the binary.
const Manager = "kube-apiserver"

// StatusWriter writes a definition's status through the API (the REST
// handler's in-process client), guarded by the object's resourceVersion.
type StatusWriter interface {
	ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

type crd = apiextensionsv1.CustomResourceDefinition

var crds = schema.GroupVersionResource{Group: apiextensionsv1.GroupName, Version: "v1", Resource: "customresourcedefinitions"}

// Controller keeps the status of every definition: accepted names and
// the NamesAccepted, Established and KubernetesAPIApprovalPolicyConformant
// conditions.
type Controller struct {
	in  *informer.Informer
	w   StatusWriter
	log *slog.Logger
	now func() time.Time

	mu sync.Mutex
	// known is the newest version of every definition: from the
	// informer, or from this controller's own writes before the informer
	// delivers them, so that names just accepted count as claimed.
	known map[string]*crd
	// queue holds names in arrival order, each once.
	queue  []string
	queued map[string]bool
	wake   chan struct{}
}

// New returns the controller over the definitions in objs; Run starts it.
func New(objs *objects.Objects, w StatusWriter, log *slog.Logger) (*Controller, error) {
	res, ok := objs.Lookup(crds)
	if !ok {
		return nil, fmt.Errorf("crdstatus: %s is not served", crds)
	}
	c := &Controller{w: w, log: log, now: time.Now,
		known: map[string]*crd{}, queued: map[string]bool{}, wake: make(chan struct{}, 1)}
	c.in = informer.New(objs.Store(), res, objs.Decode, informer.HandlerFuncs{UpsertFunc: c.upsert, DeleteFunc: c.delete}, log)
	return c, nil
}

func (c *Controller) upsert(obj runtime.Object) {
	d, ok := obj.(*crd)
	if !ok {
		return
	}
	c.mu.Lock()
	fresh := c.remember(d)
	c.mu.Unlock()
	if fresh {
		c.enqueue(d.Name)
	}
}

// delete forgets a definition; the names it held are free, so the others
// of its group are looked at again.
func (c *Controller) delete(obj runtime.Object) {
	d, ok := obj.(*crd)
	if !ok {
		return
	}
	c.mu.Lock()
	delete(c.known, d.Name)
	c.mu.Unlock()
	c.enqueueGroup(d.Spec.Group, d.Name)
}

// remember keeps d unless a newer version of it is known already (one
// this controller wrote, that the informer has not delivered yet). The
// caller holds mu.
func (c *Controller) remember(d *crd) bool {
	if old, ok := c.known[d.Name]; ok && old.UID == d.UID && revision(old) > revision(d) {
		return false
	}
	c.known[d.Name] = d
	return true
}

func revision(d *crd) int64 {
	rv, _ := strconv.ParseInt(d.ResourceVersion, 10, 64)
	return rv
}

func (c *Controller) enqueue(names ...string) {
	c.mu.Lock()
	for _, n := range names {
		if !c.queued[n] {
			c.queued[n] = true
			c.queue = append(c.queue, n)
		}
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// enqueueGroup queues every known definition of group but the one named
// except.
func (c *Controller) enqueueGroup(group, except string) {
	c.mu.Lock()
	var names []string
	for name, d := range c.known {
		if d.Spec.Group == group && name != except {
			names = append(names, name)
		}
	}
	c.mu.Unlock()
	c.enqueue(names...)
}

// next takes the oldest queued name, or "" when the queue is empty.
func (c *Controller) next() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return ""
	}
	name := c.queue[0]
	c.queue = c.queue[1:]
	delete(c.queued, name)
	return name
}

// Run follows the definitions and writes their status until ctx is done.
// Nothing is decided before the first list is in: a definition looked at
// earlier could be given names that one not yet delivered holds.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.in.Run(ctx) })
	select {
	case <-ctx.Done():
		return
	case <-c.in.Synced():
	}
	backoff := map[string]time.Duration{}
	for {
		name := c.next()
		if name == "" {
			select {
			case <-ctx.Done():
				return
			case <-c.wake:
			}
			continue
		}
		err := c.sync(ctx, name)
		if err == nil {
			delete(backoff, name)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		delay := min(max(2*backoff[name], 100*time.Millisecond), time.Minute)
		backoff[name] = delay
		c.log.Warn("writing CRD status failed", "crd", name, "retry", delay, "err", err)
		wg.Go(func() {
			select {
			case <-ctx.Done():
			case <-time.After(delay):
				c.enqueue(name)
			}
		})
	}
}

// sync writes what the status rules change in the named definition. A
// write that conflicts, or finds the definition gone, is dropped: the
// newer version or the deletion is on its way through the informer.
func (c *Controller) sync(ctx context.Context, name string) error {
	c.mu.Lock()
	d := c.known[name]
	all := make([]*crd, 0, len(c.known))
	for _, other := range c.known {
		all = append(all, other)
	}
	c.mu.Unlock()
	if d == nil {
		return nil
	}
	u := definition.NextStatus(d, all, c.now())
	if !u.Changed {
		return nil
	}
	next := d.DeepCopy()
	next.Status = u.Status
	out, err := c.w.ApplyStatus(ctx, next, Manager)
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if written, ok := out.(*crd); ok {
		c.mu.Lock()
		c.remember(written)
		c.mu.Unlock()
	}
	if u.Names {
		// Names this definition held may be free now.
		c.enqueueGroup(d.Spec.Group, name)
	}
	return nil
}
