package server

import (
	"context"
	"log/slog"
	"sort"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/rest"
)

// aggregator keeps ClusterRoles with an aggregationRule holding the rules
// of the ClusterRoles their selectors pick, as kube-controller-manager's
// clusterrole-aggregation controller does.
type aggregator struct {
	mu      sync.Mutex
	roles   map[string]*rbacv1.ClusterRole
	changed chan struct{}
	rest    func() *rest.Handler
	log     *slog.Logger
}

func newAggregator(h func() *rest.Handler, log *slog.Logger) *aggregator {
	return &aggregator{roles: map[string]*rbacv1.ClusterRole{}, changed: make(chan struct{}, 1), rest: h, log: log}
}

// Upsert implements informer.Handler.
func (g *aggregator) Upsert(obj runtime.Object) {
	cr, ok := obj.(*rbacv1.ClusterRole)
	if !ok {
		return
	}
	g.mu.Lock()
	g.roles[cr.Name] = cr
	g.mu.Unlock()
	g.poke()
}

// Delete implements informer.Handler.
func (g *aggregator) Delete(obj runtime.Object) {
	cr, ok := obj.(*rbacv1.ClusterRole)
	if !ok {
		return
	}
	g.mu.Lock()
	delete(g.roles, cr.Name)
	g.mu.Unlock()
	g.poke()
}

func (g *aggregator) poke() {
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// Run writes aggregated rules after every change until ctx is done.
func (g *aggregator) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.changed:
			g.sync(ctx)
		}
	}
}

func (g *aggregator) sync(ctx context.Context) {
	g.mu.Lock()
	all := make([]*rbacv1.ClusterRole, 0, len(g.roles))
	for _, cr := range g.roles {
		all = append(all, cr)
	}
	g.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	for _, cr := range all {
		if cr.AggregationRule == nil {
			continue
		}
		rules, err := rbac.AggregatedRules(cr, all)
		if err != nil {
			g.log.Warn("aggregating cluster role", "clusterrole", cr.Name, "err", err)
			continue
		}
		if equality.Semantic.DeepEqual(rules, cr.Rules) {
			continue
		}
		updated := cr.DeepCopy()
		updated.Rules = rules
		// A conflict means a newer version is on its way through the
		// informer, which pokes this loop again.
		if _, err := g.rest().Apply(ctx, updated, "clusterrole-aggregation-controller"); err != nil && ctx.Err() == nil {
			g.log.Debug("writing aggregated cluster role", "clusterrole", cr.Name, "err", err)
		}
	}
}
