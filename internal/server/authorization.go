package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/authz"
	"github.com/portcullis/portcullis/internal/authz/authzconfig"
	"github.com/portcullis/portcullis/internal/authz/node"
	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/rest"
	"github.com/portcullis/portcullis/internal/storage"
)

// authorization is the assembled authorization stage.
type authorization struct {
	chain authz.Authorizer
	rules authorizer.RuleResolver
	rbac  *rbac.Authorizer
	node  *node.Authorizer
	// run keeps the authorizers' data current (informers, reload).
	run []func(ctx context.Context)
	// synced is closed once every informer has delivered its first list.
	synced []<-chan struct{}
}

// newAuthorization builds the chain from --authorization-config or the
// legacy --authorization-mode flags. The RBAC and Node authorizers are
// fed from the store by informers.
func newAuthorization(cfg Config, reg *registry.Registry, store storage.Store, decode informer.Decoder, restHandler func() *rest.Handler, prom prometheus.Registerer, log *slog.Logger) (*authorization, error) {
	var (
		azCfg *authzconfig.Config
		err   error
	)
	if cfg.AuthorizationConfigFile != "" {
		if cfg.AuthorizationFlagsSet {
			return nil, authzconfig.ErrFlagsExclusive
		}
		azCfg, err = authzconfig.Load(cfg.AuthorizationConfigFile)
	} else {
		azCfg, err = authzconfig.FromFlags(cfg.AuthorizationModes, cfg.AuthorizationWebhookConfigFile, cfg.AuthorizationWebhookVersion,
			cfg.AuthorizationWebhookCacheAuthorizedTTL, cfg.AuthorizationWebhookCacheUnauthorizedTTL)
	}
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	out := &authorization{}
	deps := authzconfig.Deps{Registerer: prom, APIServerID: "portcullis-" + host, Logger: log}
	if azCfg.Has(authzconfig.TypeRBAC) {
		out.rbac = rbac.New()
		deps.RBAC = out.rbac
		for _, r := range []string{"roles", "rolebindings", "clusterrolebindings"} {
			out.follow(reg, store, decode, schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: r}, rbacFeed{out.rbac, log}, log)
		}
		agg := newAggregator(restHandler, log)
		out.run = append(out.run, agg.Run)
		out.follow(reg, store, decode, schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
			informer.HandlerFuncs{
				UpsertFunc: func(o runtime.Object) { rbacFeed{out.rbac, log}.Upsert(o); agg.Upsert(o) },
				DeleteFunc: func(o runtime.Object) { rbacFeed{out.rbac, log}.Delete(o); agg.Delete(o) },
			}, log)
	}
	if azCfg.Has(authzconfig.TypeNode) {
		out.node, err = node.New(node.Options{Registerer: prom})
		if err != nil {
			return nil, err
		}
		deps.Node = out.node
		for _, gvr := range []schema.GroupVersionResource{
			{Version: "v1", Resource: "pods"}, {Version: "v1", Resource: "persistentvolumes"},
			{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattachments"}, {Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"},
		} {
			out.follow(reg, store, decode, gvr, out.node, log)
		}
	}
	if cfg.AuthorizationConfigFile != "" {
		ctl, err := authzconfig.NewController(cfg.AuthorizationConfigFile, azCfg, deps)
		if err != nil {
			return nil, err
		}
		out.chain, out.run = ctl, append(out.run, ctl.Run)
	} else if out.chain, err = authzconfig.Build(azCfg, deps); err != nil {
		return nil, err
	}
	if rr, ok := out.chain.(authorizer.RuleResolver); ok {
		out.rules = rr
	}
	return out, nil
}

func (a *authorization) follow(reg *registry.Registry, store storage.Store, decode informer.Decoder, gvr schema.GroupVersionResource, h informer.Handler, log *slog.Logger) {
	res, ok := reg.Lookup(gvr)
	if !ok {
		return
	}
	in := informer.New(store, res, decode, h, log)
	a.run = append(a.run, in.Run)
	a.synced = append(a.synced, in.Synced())
}

// ready reports whether the authorizers have seen the stored state.
func (a *authorization) ready() error {
	for _, c := range a.synced {
		select {
		case <-c:
		default:
			return errors.New("authorizers are still loading")
		}
	}
	return nil
}

// rbacFeed adapts the RBAC authorizer, whose updates can fail, to an
// informer handler.
type rbacFeed struct {
	a   *rbac.Authorizer
	log *slog.Logger
}

func (f rbacFeed) Upsert(obj runtime.Object) {
	if err := f.a.Upsert(obj); err != nil {
		f.log.Error("rbac: indexing object", "err", err)
	}
}

func (f rbacFeed) Delete(obj runtime.Object) {
	if err := f.a.Delete(obj); err != nil {
		f.log.Error("rbac: removing object", "err", err)
	}
}

// reconcileRBAC brings the bootstrap roles and bindings up to date, as
// kube-apiserver does at every start: missing ones are created, stale
// ones get the missing rules and subjects, protected ones are left alone.
func reconcileRBAC(ctx context.Context, h *rest.Handler, log *slog.Logger) error {
	objects := rbac.Bootstrap().Objects()
	// The objects are independent: reconcile them side by side, so that
	// their durable writes share commits instead of queueing one fsync
	// each (a first start writes about a hundred).
	const workers = 8
	errs := make([]error, len(objects))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(objects) {
					return
				}
				errs[i] = reconcileOne(ctx, h, objects[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	log.Debug("bootstrap RBAC policy reconciled", "at", time.Now())
	return nil
}

// reconcileOne brings one bootstrap object to its desired state.
func reconcileOne(ctx context.Context, h *rest.Handler, desired runtime.Object) error {
	m, _ := meta.Accessor(desired)
	gvr := rbacResource(desired)
	existing, err := h.Get(ctx, gvr, m.GetNamespace(), m.GetName())
	if apierrors.IsNotFound(err) {
		existing, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", gvr.Resource, m.GetName(), err)
	}
	rec, err := rbac.Reconcile(existing, desired)
	if err != nil {
		return fmt.Errorf("reconciling %s %s: %w", gvr.Resource, m.GetName(), err)
	}
	switch rec.Action {
	case rbac.ActionCreate, rbac.ActionUpdate:
		_, err = h.Apply(ctx, rec.Object, "portcullis-rbac-bootstrap")
	case rbac.ActionRecreate:
		if err = h.Remove(ctx, gvr, m.GetNamespace(), m.GetName()); err == nil {
			rm, _ := meta.Accessor(rec.Object)
			rm.SetResourceVersion("")
			_, err = h.Apply(ctx, rec.Object, "portcullis-rbac-bootstrap")
		}
	}
	if err != nil {
		return fmt.Errorf("writing %s %s: %w", gvr.Resource, m.GetName(), err)
	}
	return nil
}

func rbacResource(obj runtime.Object) schema.GroupVersionResource {
	gvr := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1"}
	switch obj.(type) {
	case *rbacv1.ClusterRole:
		gvr.Resource = "clusterroles"
	case *rbacv1.ClusterRoleBinding:
		gvr.Resource = "clusterrolebindings"
	case *rbacv1.Role:
		gvr.Resource = "roles"
	case *rbacv1.RoleBinding:
		gvr.Resource = "rolebindings"
	}
	return gvr
}
