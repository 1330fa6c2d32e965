package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/storage"
)

// Manager is the field manager of the controller's writes.
const Manager = "portcullis-namespace-controller"

// System are the namespaces every cluster has.
var System = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// API is the write path the controller uses (rest.Handler's in-process
// client).
type API interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error
	FinalizeNamespace(ctx context.Context, name, manager string) error
}

// Controller finalizes terminating namespaces.
type Controller struct {
	objs   *objects.Objects
	api    API
	log    *slog.Logger
	period time.Duration
}

// New returns the controller; Run starts it.
func New(objs *objects.Objects, api API, log *slog.Logger) *Controller {
	return &Controller{objs: objs, api: api, log: log, period: time.Second}
}

var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// EnsureSystem creates the system namespaces that do not exist yet.
func (c *Controller) EnsureSystem(ctx context.Context) error {
	for _, name := range System {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}}}
		if _, err := c.api.Create(ctx, ns, "portcullis"); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	return nil
}

// Run finalizes terminating namespaces until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	res, _ := c.objs.Lookup(namespaces)
	ticker := time.NewTicker(c.period)
	defer ticker.Stop()
	var events <-chan storage.Event
	for {
		if events == nil {
			if ch, err := c.objs.Store().Watch(ctx, res.KeyPrefix(), 0); err == nil {
				events = ch
			}
		}
		c.sync(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case _, ok := <-events:
			if !ok {
				events = nil
			}
		}
	}
}

// sync makes one pass over the terminating namespaces.
func (c *Controller) sync(ctx context.Context) {
	all, err := c.objs.List(ctx, namespaces, "", nil)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("namespace controller: listing namespaces", "err", err)
		}
		return
	}
	for _, obj := range all {
		ns := obj.(*corev1.Namespace)
		if ns.DeletionTimestamp == nil {
			continue
		}
		if err := c.finalize(ctx, ns.Name); err != nil && !errors.Is(err, errContentRemains) && ctx.Err() == nil {
			c.log.Warn("finalizing namespace", "namespace", ns.Name, "err", err)
		}
	}
}

var errContentRemains = errors.New("namespace still has content")

// finalize deletes what is left in namespace name, and the namespace's
// finalizer once nothing is.
func (c *Controller) finalize(ctx context.Context, name string) error {
	remaining := 0
	for _, res := range c.objs.Registry().All() {
		if !res.Namespaced || res.Virtual || res.StoredAs != nil {
			continue
		}
		objs, err := c.objs.List(ctx, res.GVR, name, nil)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			remaining++
			m, _ := meta.Accessor(obj)
			if m.GetDeletionTimestamp() != nil {
				continue
			}
			if err := c.api.Remove(ctx, res.GVR, name, m.GetName()); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	if remaining > 0 {
		return errContentRemains
	}
	return c.api.FinalizeNamespace(ctx, name, Manager)
}
