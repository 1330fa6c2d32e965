package authzconfig

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/authz"
	"github.com/portcullis/portcullis/internal/authz/abac"
	"github.com/portcullis/portcullis/internal/authz/node"
	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// Flags are kube-apiserver's authorization flags.
type Flags struct {
	// ConfigFile is --authorization-config.
	ConfigFile string
	// LegacySet records whether any of the legacy flags below was given,
	// which ConfigFile excludes.
	LegacySet bool
	Modes     []string
	// PolicyFile is --authorization-policy-file (mode ABAC).
	PolicyFile             string
	WebhookConfigFile      string
	WebhookVersion         string
	WebhookAuthorizedTTL   time.Duration
	WebhookUnauthorizedTTL time.Duration
}

// Stage is the server's authorization: the chain, and the RBAC and Node
// authorizers it names kept current from the store.
type Stage struct {
	// Authorizer decides every request.
	Authorizer authz.Authorizer
	// Rules lists a user's rules (SelfSubjectRulesReview); nil when no
	// authorizer of the chain can.
	Rules authorizer.RuleResolver
	// RBAC is the RBAC authorizer when the chain has one, for the
	// escalation checks of RBAC writes.
	RBAC *rbac.Authorizer

	runs   []func(ctx context.Context)
	synced []<-chan struct{}
}

// NewStage builds the chain from --authorization-config or the legacy
// flags; its RBAC and Node authorizers are fed from objs by informers.
func NewStage(f Flags, objs *objects.Objects, reg prometheus.Registerer, serverID string, log *slog.Logger) (*Stage, error) {
	var (
		cfg *Config
		err error
	)
	if f.ConfigFile != "" {
		if f.LegacySet {
			return nil, ErrFlagsExclusive
		}
		cfg, err = Load(f.ConfigFile)
	} else {
		cfg, err = FromFlags(f.Modes, f.PolicyFile, f.WebhookConfigFile, f.WebhookVersion, f.WebhookAuthorizedTTL, f.WebhookUnauthorizedTTL)
	}
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stage{}
	deps := Deps{Registerer: reg, APIServerID: serverID, Logger: log}
	if cfg.Has(TypeRBAC) {
		s.RBAC = rbac.New()
		deps.RBAC = s.RBAC
		feed := rbacFeed{s.RBAC, log}
		for _, r := range []string{"roles", "rolebindings", "clusterroles", "clusterrolebindings"} {
			s.follow(objs, schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: r}, feed, log)
		}
	}
	if cfg.Has(TypeABAC) {
		a, err := abac.New(f.PolicyFile)
		if err != nil {
			return nil, fmt.Errorf("invalid authorization config: %w", err)
		}
		deps.ABAC = a
	}
	if cfg.Has(TypeNode) {
		n, err := node.New(node.Options{Registerer: reg})
		if err != nil {
			return nil, err
		}
		deps.Node = n
		for _, gvr := range []schema.GroupVersionResource{
			{Version: "v1", Resource: "pods"}, {Version: "v1", Resource: "persistentvolumes"},
			{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattachments"}, {Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"},
		} {
			s.follow(objs, gvr, n, log)
		}
	}
	if f.ConfigFile != "" {
		ctl, err := NewController(f.ConfigFile, cfg, deps)
		if err != nil {
			return nil, err
		}
		s.Authorizer = ctl
		s.runs = append(s.runs, ctl.Run)
	} else if s.Authorizer, err = Build(cfg, deps); err != nil {
		return nil, err
	}
	if rr, ok := s.Authorizer.(authorizer.RuleResolver); ok {
		s.Rules = rr
	}
	return s, nil
}

func (s *Stage) follow(objs *objects.Objects, gvr schema.GroupVersionResource, h informer.Handler, log *slog.Logger) {
	res, ok := objs.Lookup(gvr)
	if !ok {
		return
	}
	in := informer.New(objs.Store(), res, objs.Decode, h, log)
	s.runs = append(s.runs, in.Run)
	s.synced = append(s.synced, in.Synced())
}

// Run keeps the authorizers' data and the configuration file current
// until ctx is done.
func (s *Stage) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, run := range s.runs {
		wg.Go(func() { run(ctx) })
	}
	wg.Wait()
}

// Ready reports whether the authorizers have seen the stored state (the
// poststarthook/authorization-informers-synced check of /readyz).
func (s *Stage) Ready() error {
	for _, c := range s.synced {
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
