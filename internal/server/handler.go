package server

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/lifecycle"
	"github.com/portcullis/portcullis/internal/admission/manifest"
	"github.com/portcullis/portcullis/internal/admission/mutating"
	"github.com/portcullis/portcullis/internal/admission/noderestriction"
	"github.com/portcullis/portcullis/internal/admission/policy"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/webhook"
	"github.com/portcullis/portcullis/internal/audit"
	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/authz"
	"github.com/portcullis/portcullis/internal/authz/rbac"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/discovery"
	"github.com/portcullis/portcullis/internal/healthz"
	"github.com/portcullis/portcullis/internal/metrics"
	"github.com/portcullis/portcullis/internal/openapi"
	"github.com/portcullis/portcullis/internal/printers"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/rest"
	"github.com/portcullis/portcullis/internal/reviews"
	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/tracing"
	"github.com/portcullis/portcullis/internal/validation"
	"github.com/portcullis/portcullis/internal/version"
)

type apiDeps struct {
	store  storage.Store
	authn  authn.Authenticator
	log    *slog.Logger
	config Config
	// saKeys returns the service account keys; nil loads them in place.
	saKeys func() (*serviceaccount.Keys, error)
}

// api is the assembled request path.
type api struct {
	handler       http.Handler
	rest          *rest.Handler
	openapi       *openapi.Documents
	ready         atomic.Bool
	authorization *authorization
	// background work to run until shutdown (reloaders, informers).
	background []func(ctx context.Context)
	// stopping is closed when shutdown begins; long-running requests end.
	stopping chan struct{}
	closers  []func()
}

func (a *api) setReady(v bool) { a.ready.Store(v) }

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

func newAPI(d apiDeps) (*api, error) {
	scheme, err := registry.NewScheme()
	if err != nil {
		return nil, err
	}
	reg, err := registry.New(registry.Builtin())
	if err != nil {
		return nil, err
	}
	a := &api{stopping: make(chan struct{})}
	metricsRegistry := metrics.NewRegistry()
	encrypted, err := newEncryption(d.config, reg, d.store, metricsRegistry.Prometheus(), d.log)
	if err != nil {
		return nil, err
	}
	if encrypted != nil {
		// Everything below reads and writes through encryption.
		d.store = encrypted
		a.background = append(a.background, encrypted.Run)
	}
	// Admission plugins, authenticators and authorizers read through the
	// REST handler, built after them.
	var restHandler *rest.Handler
	authorization, err := newAuthorization(d.config, reg, d.store, func(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
		return restHandler.DecodeStored(res, kv)
	}, func() *rest.Handler { return restHandler }, metricsRegistry.Prometheus(), d.log)
	if err != nil {
		return nil, err
	}
	a.background = append(a.background, authorization.run...)
	a.authorization = authorization
	chainAuthz := authorization.chain
	access := reviews.Access{
		Authorizer: func() authorizer.UnconditionalAuthorizer { return chainAuthz },
		Rules:      func() authorizer.RuleResolver { return reviews.SuperuserRules{Next: authorization.rules} },
	}
	sa, err := newServiceAccounts(d.config, d.saKeys, objectGetter{rest: &restHandler})
	if err != nil {
		return nil, err
	}
	authentication, err := newAuthentication(d.config, d.authn, sa.authenticator, metricsRegistry.Prometheus(), d.log)
	if err != nil {
		return nil, err
	}
	a.background = append(a.background, authentication.run)
	tokens := authentication.tokens
	docs, err := openapi.New(scheme, openAPIResources(reg), openapi.Info{Title: "Kubernetes", Version: version.Info().GitVersion})
	if err != nil {
		return nil, fmt.Errorf("building OpenAPI documents: %w", err)
	}
	a.openapi = docs
	feeds := &policyFeeds{reg: reg, store: d.store, log: d.log, rest: func() *rest.Handler { return restHandler }, schemas: docs.Resolver(),
		decode: func(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
			return restHandler.DecodeStored(res, kv)
		}}
	deps := pluginDeps{
		namespaces: func(ctx context.Context, name string) (*corev1.Namespace, error) {
			return restHandler.GetNamespace(ctx, name)
		},
		objects:             objectGetter{rest: &restHandler},
		authorizer:          chainAuthz,
		params:              paramSource{rest: &restHandler},
		metrics:             metricsRegistry.Prometheus(),
		log:                 d.log,
		feeds:               feeds,
		scheme:              scheme,
		services:            serviceResolver{rest: func() *rest.Handler { return restHandler }},
		serverID:            serverID(),
		manifestsGate:       d.config.FeatureGates[gateManifests],
		audienceRestriction: d.config.gate("ServiceAccountNodeAudienceRestriction", true),
	}
	chain, enabled, err := admission.Build(admissionPlugins(deps), admission.Options{Enable: d.config.EnableAdmissionPlugins, Disable: d.config.DisableAdmissionPlugins, ConfigFile: d.config.AdmissionControlConfigFile})
	if err != nil {
		return nil, err
	}
	sa.admission = chain
	a.background = append(a.background, feeds.run...)
	validateCreate, validateUpdate := validateWithExpressions(validation.Create, validation.Update)
	chain.Validators = append(chain.Validators, staticSuffixCheck(deps.manifestsGate))
	if authorization.rbac != nil {
		chain.Validators = append(chain.Validators, rbac.NewEscalationCheck(authorization.rbac, chainAuthz))
	}
	d.log.Debug("admission plugins", "enabled", enabled)
	restHandler, err = rest.New(rest.Config{
		Registry:   reg,
		Scheme:     scheme,
		Store:      d.store,
		Admission:  chain,
		Authorizer: chainAuthz,
		Table:      table,
		Stopping:   a.stopping,
		// Validation assumes defaulted objects; the REST layer defaults first.
		Default:        defaults.Apply,
		ValidateCreate: validateCreate,
		ValidateUpdate: validateUpdate,
		Connectors: map[rest.ConnectorKey]rest.ConnectorFunc{
			{Resource: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, Subresource: "token"}: sa.tokenRequest,
		},
		Virtual: map[schema.GroupVersionResource]rest.VirtualFunc{
			{Group: "authentication.k8s.io", Version: "v1", Resource: "selfsubjectreviews"}:       reviews.SelfSubject,
			{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}:             reviews.Token{Authenticator: tokens}.Review,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}:      access.SubjectAccessReview,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectaccessreviews"}:  access.SelfSubjectAccessReview,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "localsubjectaccessreviews"}: access.LocalSubjectAccessReview,
			{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectrulesreviews"}:   access.SelfSubjectRulesReview,
		},
	})
	if err != nil {
		return nil, err
	}
	a.rest = restHandler
	rs := restHandler.Responder()
	disc, err := discovery.New(reg, rs)
	if err != nil {
		return nil, err
	}

	v2, v3 := docs.V2Handler(), docs.V3Handler()

	storeCheck := healthz.Check{Name: "etcd", Fn: func(ctx context.Context) error {
		_, _, err := d.store.Revision(ctx)
		return err
	}}
	authzCheck := healthz.Check{Name: "poststarthook/authorization-informers-synced", Fn: func(context.Context) error { return authorization.ready() }}
	readyCheck := healthz.Check{Name: "shutdown", Fn: func(context.Context) error {
		if !a.ready.Load() {
			return errors.New("server is not accepting requests")
		}
		return nil
	}}
	authnCheck := healthz.Check{Name: "poststarthook/authentication-config-issuers", Fn: func(context.Context) error { return authentication.health() }}
	health := healthz.Handler{Endpoint: "healthz", Checks: []healthz.Check{healthz.Ping, storeCheck}}
	live := healthz.Handler{Endpoint: "livez", Checks: []healthz.Check{healthz.Ping, storeCheck}}
	ready := healthz.Handler{Endpoint: "readyz", Checks: []healthz.Check{healthz.Ping, storeCheck, authnCheck, authzCheck, readyCheck}}
	if encrypted != nil && encrypted.HasKMS() {
		// As kube-apiserver: one check for all KMS plugins, on healthz
		// and readyz but not livez (a plugin that is down is no reason to
		// restart the server).
		kms := healthz.Check{Name: "kms-providers", Fn: encrypted.Check}
		health.Checks = append(health.Checks, kms)
		ready.Checks = append(ready.Checks, kms)
	}

	var mux http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		st := request.StateFrom(r.Context())
		switch {
		case st.Info.IsResourceRequest:
			restHandler.ServeHTTP(w, r)
		case p == "/healthz" || strings.HasPrefix(p, "/healthz/"):
			health.ServeHTTP(w, r)
		case p == "/livez" || strings.HasPrefix(p, "/livez/"):
			live.ServeHTTP(w, r)
		case p == "/readyz" || strings.HasPrefix(p, "/readyz/"):
			ready.ServeHTTP(w, r)
		case p == "/version" || p == "/version/":
			v := version.Info()
			writeJSON(w, http.StatusOK, &v)
		case p == "/openapi/v2":
			v2.ServeHTTP(w, r)
		case p == "/openapi/v3" || strings.HasPrefix(p, "/openapi/v3/"):
			v3.ServeHTTP(w, r)
		case d.config.Profiling && strings.HasPrefix(p, "/debug/pprof"):
			servePprof(w, r)
		case sa.serveIssuerDiscovery(w, r):
		case disc.Serve(w, r):
		default:
			notFound(w, r, rs)
		}
	})
	mux = withMetricsEndpoint(mux, metricsRegistry.Handler())
	// Innermost first: authorization, impersonation, audit, metrics,
	// tracing, authentication, request state, panic recovery.
	var h http.Handler = mux
	h = authz.Filter(h, chainAuthz, rs)
	h = authz.Impersonation(h, chainAuthz, rs)
	if d.config.AuditPolicyFile != "" && d.config.AuditLogPath != "" {
		policy, err := audit.LoadPolicy(d.config.AuditPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("--audit-policy-file: %w", err)
		}
		logger, err := audit.NewLogger(audit.LogConfig{Path: d.config.AuditLogPath, MaxSizeMB: d.config.AuditLogMaxSize,
			MaxAgeDays: d.config.AuditLogMaxAge, MaxBackups: d.config.AuditLogMaxBackup})
		if err != nil {
			return nil, fmt.Errorf("--audit-log-path: %w", err)
		}
		a.closers = append(a.closers, func() { _ = logger.Close() })
		h = audit.Middleware(h, logger, policy)
	}
	h = metricsRegistry.Middleware(h)
	if d.config.TracingConfigFile != "" {
		// Just inside authentication, as in kube-apiserver: whether a
		// caller may join its own trace depends on who it is.
		tc, err := tracing.Load(d.config.TracingConfigFile)
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
				d.log.Warn("tracing: flushing the last spans", "err", err)
			}
		})
		h = tracing.Middleware(h, tp.TracerProvider())
	}
	am, err := newAuthnMetrics(metricsRegistry.Prometheus())
	if err != nil {
		return nil, err
	}
	h = withAuthentication(h, authentication.request, am, rs, d.log)
	h = withRequestState(h)
	h = withRecovery(h, rs, d.log)
	a.handler = h
	return a, nil
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

// openAPIResources describes the registry's resources for the OpenAPI documents.
func openAPIResources(reg *registry.Registry) []openapi.Resource {
	var out []openapi.Resource
	for _, res := range reg.All() {
		r := openapi.Resource{GVK: res.GVK(), Plural: res.GVR.Resource, Namespaced: res.Namespaced, Verbs: res.AllVerbs()}
		if !res.Virtual {
			r.ListGVK = res.GVR.GroupVersion().WithKind(res.Kind + "List")
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

// servePprof serves the Go profiler under /debug/pprof/.
func servePprof(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, "/debug/pprof/") {
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Index(w, r)
	}
}

// pluginDeps is what the admission plugins read.
type pluginDeps struct {
	namespaces lifecycle.Namespaces
	objects    objectGetter
	authorizer authz.Authorizer
	params     paramSource
	metrics    prometheus.Registerer
	log        *slog.Logger
	feeds      *policyFeeds
	scheme     *runtime.Scheme
	services   webhook.ServiceResolver
	serverID   string
	// manifestsGate is the ManifestBasedAdmissionControlConfig feature gate.
	manifestsGate bool
	// audienceRestriction is the ServiceAccountNodeAudienceRestriction gate.
	audienceRestriction bool
}

func (d pluginDeps) webhookOptions(c pluginConfig) webhook.Options {
	return webhook.Options{Namespaces: matching.NamespaceGetter(d.namespaces), Authorizer: d.authorizer, Services: d.services,
		KubeconfigFile: c.KubeConfigFile, Metrics: d.metrics, Scheme: d.scheme, Log: d.log}
}

// admissionPlugins are the plugins portcullis has, in kube-apiserver's order.
// The policy and webhook plugins run their static manifests (when their
// configuration names a staticManifestsDir) before the API-created objects.
func admissionPlugins(d pluginDeps) []admission.Plugin {
	return []admission.Plugin{
		{Name: lifecycle.Name, DefaultEnabled: true, New: func([]byte) (any, error) { return lifecycle.New(d.namespaces), nil }},
		{Name: noderestriction.Name, New: func([]byte) (any, error) {
			return noderestriction.New(d.objects, noderestriction.Options{Authorizer: d.authorizer, DisableAudienceRestriction: !d.audienceRestriction})
		}},
		{Name: mutating.PluginName, DefaultEnabled: true, New: func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "MutatingAdmissionPolicyConfiguration", d.manifestsGate)
			if err != nil {
				return nil, err
			}
			newMAP := func(static bool, ready <-chan struct{}) (*mutating.Plugin, error) {
				return mutating.New(mutating.Options{Scheme: d.scheme, Namespaces: matching.NamespaceGetter(d.namespaces), Params: d.params,
					Authorizer: d.authorizer, Metrics: d.metrics, Ready: ready, Static: static, Log: d.log})
			}
			ready := make(chan struct{})
			p, err := newMAP(false, ready)
			if err != nil {
				return nil, err
			}
			d.feeds.follow(p, ready, mapResource, mapbResource)
			if cfg.StaticManifestsDir == "" {
				return p, nil
			}
			st := &static[*mutating.Plugin]{}
			if err := st.watch(cfg.StaticManifestsDir, manifest.MutatingAdmissionPolicy, func() (*mutating.Plugin, error) { return newMAP(true, nil) }, d); err != nil {
				return nil, err
			}
			return staticFirstMutator{static: func() (admission.Mutator, bool) { return st.get() }, api: p}, nil
		}},
		{Name: "MutatingAdmissionWebhook", DefaultEnabled: true, New: func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "WebhookAdmissionConfiguration", d.manifestsGate)
			if err != nil {
				return nil, err
			}
			m, err := webhook.NewMutating(d.webhookOptions(cfg))
			if err != nil {
				return nil, err
			}
			d.feeds.follow(webhookFeed(nil, m), nil, mwcResource)
			if cfg.StaticManifestsDir == "" {
				return m, nil
			}
			st := &static[mutatingHooks]{}
			if err := st.watch(cfg.StaticManifestsDir, manifest.MutatingAdmissionWebhook, func() (mutatingHooks, error) {
				opts := d.webhookOptions(cfg)
				opts.Static = true
				m, err := webhook.NewMutating(opts)
				return mutatingHooks{m}, err
			}, d); err != nil {
				return nil, err
			}
			return staticFirstMutator{static: func() (admission.Mutator, bool) { h, ok := st.get(); return h.Mutating, ok }, api: m}, nil
		}},
		{Name: policy.PluginName, DefaultEnabled: true, New: func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "ValidatingAdmissionPolicyConfiguration", d.manifestsGate)
			if err != nil {
				return nil, err
			}
			newVAP := func(static bool, ready <-chan struct{}) *policy.Plugin {
				return policy.New(policy.Options{Namespaces: matching.NamespaceGetter(d.namespaces), Params: d.params, Authorizer: d.authorizer,
					Metrics: d.metrics, Ready: ready, Static: static, Log: d.log})
			}
			ready := make(chan struct{})
			p := newVAP(false, ready)
			d.feeds.validating(func() *policy.Plugin { return p }, ready)
			if cfg.StaticManifestsDir == "" {
				return p, nil
			}
			st := &static[*policy.Plugin]{}
			if err := st.watch(cfg.StaticManifestsDir, manifest.ValidatingAdmissionPolicy, func() (*policy.Plugin, error) { return newVAP(true, nil), nil }, d); err != nil {
				return nil, err
			}
			return staticFirstValidator{static: func() (admission.Validator, bool) { return st.get() }, api: p}, nil
		}},
		{Name: "ValidatingAdmissionWebhook", DefaultEnabled: true, New: func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "WebhookAdmissionConfiguration", d.manifestsGate)
			if err != nil {
				return nil, err
			}
			v, err := webhook.NewValidating(d.webhookOptions(cfg))
			if err != nil {
				return nil, err
			}
			d.feeds.follow(webhookFeed(v, nil), nil, vwcResource)
			if cfg.StaticManifestsDir == "" {
				return v, nil
			}
			st := &static[validatingHooks]{}
			if err := st.watch(cfg.StaticManifestsDir, manifest.ValidatingAdmissionWebhook, func() (validatingHooks, error) {
				opts := d.webhookOptions(cfg)
				opts.Static = true
				v, err := webhook.NewValidating(opts)
				return validatingHooks{v}, err
			}, d); err != nil {
				return nil, err
			}
			return staticFirstValidator{static: func() (admission.Validator, bool) { h, ok := st.get(); return h.Validating, ok }, api: v}, nil
		}},
	}
}

// validatingHooks and mutatingHooks give the webhook plugins the
// runtime.Object Upsert of the other engines.
type validatingHooks struct{ *webhook.Validating }

func (h validatingHooks) Upsert(obj runtime.Object) {
	if c, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
		h.Validating.Upsert(c)
	}
}

type mutatingHooks struct{ *webhook.Mutating }

func (h mutatingHooks) Upsert(obj runtime.Object) {
	if c, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
		h.Mutating.Upsert(c)
	}
}
