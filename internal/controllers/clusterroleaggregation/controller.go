package clusterroleaggregation

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
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
	aggregate(ctx, c.roles.List(), c.w, c.log)
}

// aggregate writes the aggregated rules of the roles of all (in name
// order) whose rules are not those yet, and returns how many it wrote.
func aggregate(ctx context.Context, all []*rbacv1.ClusterRole, w Writer, log *slog.Logger) int {
	written := 0
	for _, cr := range all {
		if cr.AggregationRule == nil {
			continue
		}
		rules, err := rbac.AggregatedRules(cr, all)
		if err != nil {
			log.Warn("aggregating cluster role", "clusterrole", cr.Name, "err", err)
			continue
		}
		if equality.Semantic.DeepEqual(rules, cr.Rules) {
			continue
		}
		updated := cr.DeepCopy()
		updated.Rules = rules
		if _, err := w.Apply(ctx, updated, Manager); err != nil {
			if ctx.Err() == nil {
				log.Debug("writing aggregated cluster role", "clusterrole", cr.Name, "err", err)
			}
			continue
		}
		written++
	}
	return written
}

// Once aggregates every ClusterRole of objs until none changes (a role
// can aggregate roles that are themselves aggregated), as the controller
// would have by the time it is idle: offline runs, which do not run
// controllers, start from that state.
func Once(ctx context.Context, objs *objects.Objects, w Writer, log *slog.Logger) error {
	gvr := schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: "clusterroles"}
	// Each round settles one more level of roles aggregating roles.
	for range 8 {
		list, err := objs.List(ctx, gvr, "", nil)
		if err != nil {
			return err
		}
		all := make([]*rbacv1.ClusterRole, 0, len(list))
		for _, o := range list {
			all = append(all, o.(*rbacv1.ClusterRole))
		}
		slices.SortFunc(all, func(a, b *rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
		if aggregate(ctx, all, w, log) == 0 {
			return nil
		}
	}
	return errors.New("aggregating cluster roles: still changing after 8 rounds (a cycle of aggregation rules?)")
}
