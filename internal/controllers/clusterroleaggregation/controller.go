package clusterroleaggregation

import (
	"context"
	"log/slog"
	"sort"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// Manager is the field manager of the controller's writes, as in
// kube-controller-manager.
const Manager = "clusterrole-aggregation-controller"

// Writer writes ClusterRoles through the API.
type Writer interface {
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Controller aggregates ClusterRoles.
type Controller struct {
	in      *informer.Informer
	w       Writer
	log     *slog.Logger
	mu      sync.Mutex
	roles   map[string]*rbacv1.ClusterRole
	changed chan struct{}
}

// New returns the controller over the ClusterRoles in objs; Run starts it.
func New(objs *objects.Objects, w Writer, log *slog.Logger) *Controller {
	c := &Controller{w: w, log: log, roles: map[string]*rbacv1.ClusterRole{}, changed: make(chan struct{}, 1)}
	res, _ := objs.Lookup(schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: "clusterroles"})
	c.in = informer.New(objs.Store(), res, objs.Decode, informer.HandlerFuncs{UpsertFunc: c.upsert, DeleteFunc: c.delete}, log)
	return c
}

func (c *Controller) upsert(obj runtime.Object) {
	if cr, ok := obj.(*rbacv1.ClusterRole); ok {
		c.mu.Lock()
		c.roles[cr.Name] = cr
		c.mu.Unlock()
		c.poke()
	}
}

func (c *Controller) delete(obj runtime.Object) {
	if cr, ok := obj.(*rbacv1.ClusterRole); ok {
		c.mu.Lock()
		delete(c.roles, cr.Name)
		c.mu.Unlock()
		c.poke()
	}
}

func (c *Controller) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Run follows the ClusterRoles and writes aggregated rules after every
// change until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.in.Run(ctx) })
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.changed:
			c.sync(ctx)
		}
	}
}

func (c *Controller) sync(ctx context.Context) {
	c.mu.Lock()
	all := make([]*rbacv1.ClusterRole, 0, len(c.roles))
	for _, cr := range c.roles {
		all = append(all, cr)
	}
	c.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	for _, cr := range all {
		if cr.AggregationRule == nil {
			continue
		}
		rules, err := rbac.AggregatedRules(cr, all)
		if err != nil {
			c.log.Warn("aggregating cluster role", "clusterrole", cr.Name, "err", err)
			continue
		}
		if equality.Semantic.DeepEqual(rules, cr.Rules) {
			continue
		}
		updated := cr.DeepCopy()
		updated.Rules = rules
		if _, err := c.w.Apply(ctx, updated, Manager); err != nil && ctx.Err() == nil {
			c.log.Debug("writing aggregated cluster role", "clusterrole", cr.Name, "err", err)
		}
	}
}
