package clusterroleaggregation

import (
	"context"
	"log/slog"
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
	roles   *informer.Set[*rbacv1.ClusterRole]
	changed <-chan struct{}
	w       Writer
	log     *slog.Logger
}

// New returns the controller over the ClusterRoles in objs; Run starts it.
func New(objs *objects.Objects, w Writer, log *slog.Logger) *Controller {
	res, _ := objs.Lookup(schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: "clusterroles"})
	roles := informer.NewSet[*rbacv1.ClusterRole](objs.Store(), res, objs.Decode, log)
	return &Controller{roles: roles, changed: roles.Subscribe(), w: w, log: log}
}

// Run follows the ClusterRoles and writes aggregated rules after every
// change until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.roles.Run(ctx) })
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
	all := c.roles.List() // in name order
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
