package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/plugins"
	"github.com/portcullis/portcullis/internal/admission/policy"
	"github.com/portcullis/portcullis/internal/admission/tokenrequest"
	"github.com/portcullis/portcullis/internal/audit"
	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/authnconfig"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/authz"
	"github.com/portcullis/portcullis/internal/authz/authzconfig"
	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/controllers/apfconfig"
	"github.com/portcullis/portcullis/internal/controllers/apiservices"
	"github.com/portcullis/portcullis/internal/controllers/authenticationtrust"
	"github.com/portcullis/portcullis/internal/controllers/bootstraprbac"
	"github.com/portcullis/portcullis/internal/controllers/clusterroleaggregation"
	"github.com/portcullis/portcullis/internal/controllers/crdcleanup"
	"github.com/portcullis/portcullis/internal/controllers/crdstatus"
	"github.com/portcullis/portcullis/internal/controllers/leaderelection"
	"github.com/portcullis/portcullis/internal/controllers/namespace"
	"github.com/portcullis/portcullis/internal/controllers/objectcount"
	"github.com/portcullis/portcullis/internal/controllers/policystatus"
	rqcontroller "github.com/portcullis/portcullis/internal/controllers/resourcequota"
	"github.com/portcullis/portcullis/internal/controllers/rootcacertpublisher"
	sacontroller "github.com/portcullis/portcullis/internal/controllers/serviceaccount"
	"github.com/portcullis/portcullis/internal/controllers/systempriorityclasses"
	"github.com/portcullis/portcullis/internal/crd"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/discovery"
	"github.com/portcullis/portcullis/internal/metrics"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/openapi"
	"github.com/portcullis/portcullis/internal/printers"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/rest"
	"github.com/portcullis/portcullis/internal/reviews"
	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/tracing"
	"github.com/portcullis/portcullis/internal/validation"
	"github.com/portcullis/portcullis/internal/version"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

type apiDeps struct {
	store *backend
	// certs authenticates client certificates (a front proxy's first).
	certs  certificates
	log    *slog.Logger
	config Config
	// saKeys returns the service account keys; nil loads them in place.
	saKeys func() (*serviceaccount.Keys, error)
	// rootCA is the CA bundle clients verify this server with (the admin
	// kubeconfig's), published in every namespace's kube-root-ca.crt.
	rootCA []byte
	// offline also builds the handlers that load an offline run's state
	// (api.state).
	offline bool
}

// api is the assembled request path and the work that keeps it current.
type api struct {
	handler http.Handler
	openapi *openapi.Documents
	ready   atomic.Bool
	// start runs in order before the server reports ready (system
	// namespaces, bootstrap RBAC), with background already running.
	start []func(ctx context.Context) error
	// background runs until shutdown (informers, reloaders, controllers).
	background []func(ctx context.Context)
	// controllers are kube-controller-manager's controllers: they run
	// after start, until shutdown, and on etcd only on the replica that
	// leads.
	controllers []func(ctx context.Context)
	// elector elects that replica; nil on the embedded store, which one
	// process owns.
	elector *leaderelection.Elector
	// stopping is closed when shutdown begins; long-running requests end.
	stopping chan struct{}
	closers  []func()
	// synced reports whether the authorizers and the admission chain have
	// seen the stored state (readyz's informer checks).
	synced func() error
	// state writes an offline run's cluster state: the REST handlers of
	// the request path with an empty admission chain, since that state is
	// what the cluster already holds, not a request under test. Nil
	// unless apiDeps.offline.
	state *rest.Handler
	// objects is the object layer, for reads of an offline run.
	objects *objects.Objects
	// rbac is set when RBAC authorizes, whose aggregated roles an offline
	// run fills in.
	rbac bool
}

// beginShutdown fails readiness and ends watches.
func (a *api) beginShutdown() {
	a.ready.Store(false)
	close(a.stopping)
}

func (a *api) close() {
	for _, c := range a.closers {
		c()
	}
}

// controllersLease is the Lease in kube-system that elects the replica
// running the controllers; not kube-controller-manager's, so that one
// can run beside portcullis with portcullis's controllers turned off.
const controllersLease = "portcullis-controllers"

// newAPI builds the server one way, each part from the ones before it:
// the object layer; authorization, authentication and admission, which
// read through it; the REST handlers, which use all of them; the
// controllers, which write through the REST handlers; and last the
// filters around the router.
func newAPI(d apiDeps) (*api, error) {
	cfg := d.config
	scheme, err := registry.NewScheme()
	if err != nil {
		return nil, err
	}
	reg, err := registry.New(cfg.Etcd.Prefix, registry.Builtin())
	if err != nil {
		return nil, err
	}
	a := &api{stopping: make(chan struct{})}
	metricsRegistry := metrics.NewRegistry()
	prom := metricsRegistry.Prometheus()
	id := serverID()

	var store storage.Store = d.store
	encrypted, err := newEncryption(cfg, reg, store, prom, d.log)
	if err != nil {
		return nil, err
	}
	if encrypted != nil {
		// Everything above the store reads and writes through encryption.
		store = encrypted
		a.background = append(a.background, encrypted.Run)
	}
	objs := objects.New(reg, scheme, store)
	a.objects = objs
	if d.store.embedded {
		// Before anything reads: objects an earlier version kept outside
		// kube-apiserver's layout move to their keys in it.
		moved, err := objs.MoveLegacyKeys(context.Background())
		if err != nil {
			return nil, fmt.Errorf("moving objects to kube-apiserver's key layout: %w", err)
		}
		if moved > 0 {
			d.log.Info("moved objects to kube-apiserver's key layout", "objects", moved)
		}
	}

	authorization, err := authzconfig.NewStage(authzconfig.Flags{
		ConfigFile: cfg.AuthorizationConfigFile, LegacySet: cfg.AuthorizationFlagsSet, Modes: cfg.AuthorizationModes,
		PolicyFile: cfg.AuthorizationPolicyFile, WebhookConfigFile: cfg.AuthorizationWebhookConfigFile, WebhookVersion: cfg.AuthorizationWebhookVersion,
		WebhookAuthorizedTTL: cfg.AuthorizationWebhookCacheAuthorizedTTL, WebhookUnauthorizedTTL: cfg.AuthorizationWebhookCacheUnauthorizedTTL,
	}, objs, prom, id, d.log)
	if err != nil {
		return nil, err
	}
	a.background = append(a.background, authorization.Run)
	chainAuthz := authorization.Authorizer

	serviceAccounts, err := newServiceAccounts(cfg, d.saKeys, objs)
	if err != nil {
		return nil, err
	}
	authentication, err := authnconfig.NewStage(authnconfig.Flags{
		ConfigFile: cfg.AuthenticationConfigFile, TokenAuthFile: cfg.TokenAuthFile,
		AnonymousAuth: cfg.AnonymousAuth, AnonymousAuthSet: cfg.AnonymousAuthSet, ServiceAccountIssuers: cfg.ServiceAccountIssuers,
		OIDC: cfg.OIDC, APIAudiences: cfg.apiAudiences(),
		TokenWebhook: authnconfig.TokenWebhookFlags{ConfigFile: cfg.AuthenticationTokenWebhookConfigFile,
			Version: cfg.AuthenticationTokenWebhookVersion, CacheTTL: cfg.AuthenticationTokenWebhookCacheTTL},
	}, d.certs, serviceAccounts.Authenticator, prom, id, d.log)
	if err != nil {
		return nil, err
	}
	a.background = append(a.background, authentication.Run)

	var storageChecks []plugins.StorageCheck
	if authorization.RBAC != nil {
		storageChecks = append(storageChecks, plugins.StorageCheck{Name: "RBAC escalation check", Validator: rbac.NewEscalationCheck(authorization.RBAC, chainAuthz)})
	}
	loopback := admission.NewLoopback()
	admissionSet, err := plugins.New(plugins.Deps{
		Objects: objs, Authorizer: chainAuthz, Metrics: prom, Log: d.log, ServerID: id,
		Gates: cfg.gate, Version: version.Info().GitVersion, Loopback: loopback,
		NotReadyTolerationSeconds: cfg.DefaultNotReadyTolerationSeconds, UnreachableTolerationSeconds: cfg.DefaultUnreachableTolerationSeconds,
		ManifestsGate:       cfg.gate(plugins.GateManifests, true), // beta, on by default in kube-apiserver 1.37
		AudienceRestriction: cfg.gate("ServiceAccountNodeAudienceRestriction", true),
		Storage:             storageChecks,
		WebhookAnswers:      cfg.WebhookAnswers,
	}, admission.Options{Enable: cfg.EnableAdmissionPlugins, Disable: cfg.DisableAdmissionPlugins, ConfigFile: cfg.AdmissionControlConfigFile})
	if err != nil {
		return nil, err
	}
	a.background = append(a.background, admissionSet.Run)
	d.log.Debug("admission plugins", "enabled", admissionSet.Enabled)
	tokens, err := tokenrequest.New(serviceAccounts.Requests, admissionSet.Chain)
	if err != nil {
		return nil, err
	}

	access := reviews.Access{
		Authorizer: func() authorizer.UnconditionalAuthorizer { return chainAuthz },
		Rules:      func() authorizer.RuleResolver { return reviews.SuperuserRules{Next: authorization.Rules} },
	}
	validateCreate, validateUpdate := plugins.ValidateWithExpressions(validation.Create, validation.Update, cfg.gate(plugins.GateManifests, true))
	if !cfg.AllowPrivileged {
		validateCreate, validateUpdate = disallowPrivileged(validateCreate, validateUpdate)
	}
	restConfig := rest.Config{
		Objects:    objs,
		Admission:  admissionSet.Chain,
		Authorizer: chainAuthz,
		Table:      table,
		Stopping:   a.stopping,
		// Validation assumes defaulted objects; the REST layer defaults first.
		Default:              defaults.Apply,
		ValidateCreate:       validateCreate,
		ValidateUpdate:       validateUpdate,
		ValidateStatusUpdate: validation.StatusUpdate,
		Warnings:             validation.Warnings,
		Connectors: map[rest.ConnectorKey]rest.ConnectorFunc{
			{Resource: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, Subresource: "token"}: tokens.Create,
		},
		Virtual: map[schema.GroupVersionResource]rest.VirtualFunc{
			{Group: "authentication.k8s.io", Version: "v1", Resource: "selfsubjectreviews"}:       reviews.SelfSubject,
			{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}:             reviews.Token{Authenticator: authentication.Tokens, APIAudiences: cfg.apiAudiences()}.Review,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}:      access.SubjectAccessReview,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectaccessreviews"}:  access.SelfSubjectAccessReview,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "localsubjectaccessreviews"}: access.LocalSubjectAccessReview,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectrulesreviews"}:   access.SelfSubjectRulesReview,
		},
	}
	restHandler, err := rest.New(restConfig)
	if err != nil {
		return nil, err
	}
	if d.offline {
		restConfig.Admission = &admission.Chain{}
		if a.state, err = rest.New(restConfig); err != nil {
			return nil, err
		}
	}

	// The plugins that write while admitting write through the handlers
	// they are part of, as kube-apiserver's through its loopback client.
	loopback.Connect(restHandler)

	docs, err := openapi.New(scheme, openAPIResources(reg.All()), openapi.Info{Title: "Kubernetes", Version: version.Info().GitVersion})
	if err != nil {
		return nil, fmt.Errorf("building OpenAPI documents: %w", err)
	}
	a.openapi = docs

	// Controllers write through the REST handlers, as kube-controller-manager
	// writes through kube-apiserver.
	namespaces := namespace.New(objs, restHandler, d.log)
	a.start = append(a.start, namespaces.EnsureSystem)
	trust := authenticationtrust.New(d.certs.trustInfo(cfg.RequestHeader), objs.GetConfigMap, restHandler, d.log)
	a.start = append(a.start, func(ctx context.Context) error {
		if err := trust.Sync(ctx); err != nil {
			return fmt.Errorf("publishing authentication info: %w", err)
		}
		return nil
	})
	a.background = append(a.background, trust.Run)
	if cfg.controller("namespace-controller") {
		a.controllers = append(a.controllers, namespaces.Run)
	}
	if cfg.controller("serviceaccount-controller") {
		sa, err := sacontroller.New(objs, restHandler, d.log)
		if err != nil {
			return nil, err
		}
		a.controllers = append(a.controllers, sa.Run)
	}
	if cfg.controller("resourcequota-controller") {
		quotas, err := rqcontroller.New(objs, restHandler, d.log)
		if err != nil {
			return nil, err
		}
		a.controllers = append(a.controllers, quotas.Run)
	}
	if cfg.controller("root-ca-certificate-publisher-controller") {
		rootCA, err := rootcacertpublisher.New(objs, restHandler, d.rootCA, prom, d.log)
		if err != nil {
			return nil, err
		}
		a.controllers = append(a.controllers, rootCA.Run)
	}
	a.rbac = authorization.RBAC != nil
	if a.rbac {
		a.start = append(a.start, func(ctx context.Context) error {
			if err := bootstraprbac.Run(ctx, objs, restHandler); err != nil {
				return fmt.Errorf("bootstrap RBAC policy: %w", err)
			}
			return nil
		})
		if cfg.controller("clusterrole-aggregation-controller") {
			a.controllers = append(a.controllers, clusterroleaggregation.New(objs, restHandler, d.log).Run)
		}
	}
	a.start = append(a.start, func(ctx context.Context) error {
		if err := systempriorityclasses.Run(ctx, objs, restHandler); err != nil {
			return fmt.Errorf("system priority classes: %w", err)
		}
		return nil
	})
	apf := apfconfig.New(objs, restHandler, d.log)
	a.start = append(a.start, func(ctx context.Context) error {
		if err := apf.Ensure(ctx); err != nil {
			return fmt.Errorf("API Priority and Fairness configuration: %w", err)
		}
		return nil
	})
	a.background = append(a.background, apf.Run)
	typeChecker := &policy.TypeChecker{Schemas: docs.Resolver(), KindsFor: objs.KindsFor, Log: d.log}
	if cfg.controller("validatingadmissionpolicy-status-controller") {
		a.controllers = append(a.controllers, policystatus.New(objs, typeChecker, restHandler, d.log).Run)
	}

	if !d.store.embedded && len(a.controllers) > 0 {
		a.elector, err = leaderelection.New(objs, restHandler, leaderelection.Config{Name: controllersLease, Log: d.log, Metrics: prom})
		if err != nil {
			return nil, err
		}
	}

	rs := restHandler.Responder()
	disc, err := discovery.New(reg, rs)
	if err != nil {
		return nil, err
	}
	// Custom resources: the catalog serves what the CRDs define, the
	// controllers keep the CRDs' status and finish their deletion.
	crds, err := crd.NewCRDs(objs, d.log)
	if err != nil {
		return nil, err
	}
	apis := apiservices.New(objs, reg, restHandler, d.log)
	catalog := crd.New(crds, reg, webhookclient.EndpointsResolver{Get: objs}, d.log, func([]*registry.Resource) error {
		apis.Changed()
		return disc.Refresh()
	}, publishOpenAPI(docs))
	a.background = append(a.background, crds.Run, catalog.Run, apis.Run)
	a.start = append(a.start, catalog.WaitSynced, func(ctx context.Context) error {
		if err := apis.Sync(ctx); err != nil {
			return fmt.Errorf("registering APIServices: %w", err)
		}
		return nil
	})
	cleanup := crdcleanup.New(crds, objs, restHandler, d.log)
	crdStatus, err := crdstatus.New(objs, restHandler, d.log)
	if err != nil {
		return nil, err
	}
	a.background = append(a.background, cleanup.Run, crdStatus.Run)
	if cfg.Etcd.CountMetricPollPeriod > 0 {
		counts, err := objectcount.New(reg, store, cfg.Etcd.CountMetricPollPeriod, prom, d.log)
		if err != nil {
			return nil, err
		}
		a.background = append(a.background, counts.Run)
	}
	a.synced = func() error { return errors.Join(authorization.Ready(), admissionSet.Synced()) }
	checks := healthChecks{store: d.store.check, storeReady: d.store.ready, authn: authentication.Health, authz: authorization.Ready, informers: admissionSet.Synced, ready: &a.ready}
	if encrypted != nil && encrypted.HasKMS() {
		checks.kms = encrypted.Check
	}
	mux := router{rest: restHandler, responder: rs, health: checks.handlers(), openapiV2: docs.V2Handler(), openapiV3: docs.V3Handler(),
		profiling: cfg.Profiling, issuer: serviceAccounts.Discovery, discovery: disc}
	h, err := a.filters(mux, cfg, chainAuthz, authentication.Request, metricsRegistry, rs, d.log)
	if err != nil {
		return nil, err
	}
	a.handler = h
	return a, nil
}

// filters wraps the router in the request path, outermost last here:
// request metrics, authorization, impersonation, audit, tracing,
// authentication, request state, panic recovery. Request metrics sit
// inside authorization, as kube-apiserver's instrumented handlers do: a
// request refused there is not counted in apiserver_request_total.
func (a *api) filters(mux http.Handler, cfg Config, authorizer authz.Authorizer, authenticator authn.Authenticator, mr *metrics.Registry, rs *rest.Responder, log *slog.Logger) (http.Handler, error) {
	h := withMetricsEndpoint(mux, mr.Handler())
	h = mr.Middleware(h)
	h = authz.Filter(h, authorizer, rs)
	h, err := authz.Impersonation(h, authorizer, rs, mr.Prometheus())
	if err != nil {
		return nil, err
	}
	failed := unauthorized(rs)
	if cfg.AuditPolicyFile != "" && cfg.AuditLogPath != "" {
		policy, err := audit.LoadPolicy(cfg.AuditPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("--audit-policy-file: %w", err)
		}
		logger, err := audit.NewLogger(audit.LogConfig{Path: cfg.AuditLogPath, MaxSizeMB: cfg.AuditLogMaxSize,
			MaxAgeDays: cfg.AuditLogMaxAge, MaxBackups: cfg.AuditLogMaxBackup})
		if err != nil {
			return nil, fmt.Errorf("--audit-log-path: %w", err)
		}
		a.closers = append(a.closers, func() { _ = logger.Close() })
		h = audit.Middleware(h, logger, policy)
		failed = audit.FailedAuthentication(failed, logger, policy)
	}
	if cfg.TracingConfigFile != "" {
		// Just inside authentication, as in kube-apiserver: whether a
		// caller may join its own trace depends on who it is.
		tc, err := tracing.Load(cfg.TracingConfigFile)
		if err != nil {
			return nil, err
		}
		tp, err := tracing.New(context.Background(), tc, serverID())
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tp.Shutdown(ctx); err != nil {
				log.Warn("tracing: flushing the last spans", "err", err)
			}
		})
		h = tracing.Middleware(h, tp.TracerProvider())
	}
	am, err := newAuthnMetrics(mr.Prometheus())
	if err != nil {
		return nil, err
	}
	h = withAuthentication(h, authenticator, am, failed, log)
	h = withRequestState(h)
	h = withRecovery(h, rs, log)
	return h, nil
}

// newServiceAccounts builds the token machinery; keys returns the
// service account keys, which Run may still be generating.
func newServiceAccounts(cfg Config, keys func() (*serviceaccount.Keys, error), getter serviceaccount.Getter) (*serviceaccount.Service, error) {
	if keys == nil {
		keys = func() (*serviceaccount.Keys, error) { return loadServiceAccountKeys(cfg) }
	}
	k, err := keys()
	if err != nil {
		return nil, fmt.Errorf("service account keys: %w", err)
	}
	return serviceaccount.NewService(k, serviceaccount.Config{
		Issuers:          cfg.ServiceAccountIssuers,
		APIAudiences:     cfg.APIAudiences,
		MaxExpiration:    cfg.ServiceAccountMaxTokenExpiration,
		ExtendExpiration: cfg.ServiceAccountExtendTokenExpiration,
	}, getter)
}

// loadServiceAccountKeys reads (or on a first start generates) the
// service account keys the flags name.
func loadServiceAccountKeys(cfg Config) (*serviceaccount.Keys, error) {
	return serviceaccount.LoadOrGenerateKeys(cfg.DataDir, cfg.ServiceAccountSigningKeyFile, cfg.ServiceAccountKeyFiles)
}

// serverID identifies this server in reload metrics (hashed there).
func serverID() string {
	host, _ := os.Hostname()
	return "portcullis-" + host
}

// table renders kubectl's tables, mapping the printers' errors to the
// status codes kube-apiserver answers with.
func table(obj runtime.Object, opts metav1.TableOptions, now time.Time) (*metav1.Table, error) {
	t, err := printers.Table(obj, opts, now)
	switch {
	case errors.Is(err, printers.ErrIncludeObject):
		return nil, apierrors.NewBadRequest(err.Error())
	case errors.Is(err, printers.ErrNotTable):
		return nil, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "get", schema.GroupResource{}, "", err.Error(), 0, false)
	}
	return t, err
}

// withMetricsEndpoint serves /metrics ahead of the rest of the router.
func withMetricsEndpoint(next, metricsHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			metricsHandler.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// openAPIResources describes resources for the OpenAPI documents.
func openAPIResources(resources []*registry.Resource) []openapi.Resource {
	var out []openapi.Resource
	for _, res := range resources {
		r := openapi.Resource{GVK: res.GVK(), Plural: res.GVR.Resource, Namespaced: res.Namespaced, Verbs: res.AllVerbs()}
		if !res.Virtual {
			r.ListGVK = res.GVR.GroupVersion().WithKind(res.Kind + "List")
		}
		if res.Custom != nil {
			// A CRD names its list kind (spec.names.listKind).
			r.ListGVK = res.NewList().GetObjectKind().GroupVersionKind()
		}
		if res.Status {
			r.Subresources = append(r.Subresources, "status")
		}
		if res.Scale {
			r.Subresources = append(r.Subresources, "scale")
		}
		for _, c := range res.Connectors {
			r.Subresources = append(r.Subresources, c.Name)
		}
		out = append(out, r)
	}
	return out
}

// publishOpenAPI publishes the custom resources in the OpenAPI documents.
func publishOpenAPI(docs *openapi.Documents) crd.Publisher {
	return func(custom []*registry.Resource) error {
		crs := make([]openapi.CustomResource, 0, len(custom))
		for _, r := range openAPIResources(custom) {
			res := custom[len(crs)]
			crs = append(crs, openapi.CustomResource{Resource: r, Schema: res.Custom.Schema.OpenAPI()})
		}
		return docs.SetCustom(crs)
	}
}

// disallowPrivileged adds kube-apiserver's refusal of privileged
// containers without --allow-privileged to object validation.
func disallowPrivileged(create func(runtime.Object) field.ErrorList, update func(obj, old runtime.Object) field.ErrorList) (func(runtime.Object) field.ErrorList, func(obj, old runtime.Object) field.ErrorList) {
	return func(obj runtime.Object) field.ErrorList {
			return append(create(obj), validation.DisallowPrivileged(obj)...)
		}, func(obj, old runtime.Object) field.ErrorList {
			return append(update(obj, old), validation.DisallowPrivileged(obj)...)
		}
}
