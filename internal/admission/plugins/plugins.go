package plugins

import (
	"context"
	"log/slog"
	"maps"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/lifecycle"
	"github.com/portcullis/portcullis/internal/admission/manifest"
	"github.com/portcullis/portcullis/internal/admission/mutating"
	"github.com/portcullis/portcullis/internal/admission/noderestriction"
	"github.com/portcullis/portcullis/internal/admission/policy"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/webhook"
	"github.com/portcullis/portcullis/internal/authz"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// Deps is what the plugins read.
type Deps struct {
	Objects    *objects.Objects
	Authorizer authz.Authorizer
	Metrics    prometheus.Registerer
	Log        *slog.Logger
	// ServerID labels the reload metrics (hashed there).
	ServerID string
	// ManifestsGate is the ManifestBasedAdmissionControlConfig feature gate.
	ManifestsGate bool
	// AudienceRestriction is the ServiceAccountNodeAudienceRestriction gate.
	AudienceRestriction bool
	// Storage are the checks kube-apiserver makes in the storage of
	// particular resources (RBAC escalation), run after every plugin.
	Storage []StorageCheck
	// Gates reads a feature gate (def when not set); nil: every default.
	Gates func(name string, def bool) bool
	// Loopback is the API's write path for the plugins that write while
	// they admit; the server connects it once the REST handlers exist.
	Loopback *admission.Loopback
	// NotReadyTolerationSeconds and UnreachableTolerationSeconds are
	// --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds (DefaultTolerationSeconds).
	NotReadyTolerationSeconds    int64
	UnreachableTolerationSeconds int64
	// Version is the server's version ("v1.37.2"), which decides the
	// node features NodeDeclaredFeatureValidator requires.
	Version string
	// WebhookAnswers answers admission webhooks by name from recorded
	// AdmissionReviews (JSON) instead of calling them (webhook.Options.Answers).
	WebhookAnswers func(webhook string) ([]byte, bool)
}

// StorageCheck is one of Deps.Storage, named for the decision trace.
type StorageCheck struct {
	Name      string
	Validator admission.Validator
}

// Set is the assembled chain and what keeps it current.
type Set struct {
	Chain *admission.Chain
	// Enabled names the enabled plugins in order.
	Enabled []string
	runs    []func(ctx context.Context)
	// synced are the informers' first lists, for Synced.
	synced []<-chan struct{}
}

// New builds the chain the options choose. The policy and webhook
// plugins admit no request before Run has delivered their first lists.
func New(d Deps, opts admission.Options) (*Set, error) {
	s := &Set{}
	chain, enabled, err := admission.Build(s.plugins(d), opts)
	if err != nil {
		return nil, err
	}
	chain.Validators = append(chain.Validators, staticSuffixCheck(d.ManifestsGate))
	chain.ValidatorNames = append(chain.ValidatorNames, "static manifest names")
	for _, v := range d.Storage {
		chain.Validators = append(chain.Validators, v.Validator)
		chain.ValidatorNames = append(chain.ValidatorNames, v.Name)
	}
	s.Chain, s.Enabled = chain, enabled
	return s, nil
}

// Run follows the API-created configurations and the static manifest
// directories until ctx is done.
func (s *Set) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, run := range s.runs {
		wg.Go(func() { run(ctx) })
	}
	wg.Wait()
}

var (
	vapResource  = admissionregistrationv1.SchemeGroupVersion.WithResource("validatingadmissionpolicies")
	vapbResource = admissionregistrationv1.SchemeGroupVersion.WithResource("validatingadmissionpolicybindings")
	mapResource  = admissionregistrationv1.SchemeGroupVersion.WithResource("mutatingadmissionpolicies")
	mapbResource = admissionregistrationv1.SchemeGroupVersion.WithResource("mutatingadmissionpolicybindings")
	vwcResource  = admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations")
	mwcResource  = admissionregistrationv1.SchemeGroupVersion.WithResource("mutatingwebhookconfigurations")
)

func (d Deps) webhookOptions(c pluginConfig, static bool) webhook.Options {
	return webhook.Options{Namespaces: matching.NamespaceGetter(d.Objects.GetNamespace), Authorizer: d.Authorizer,
		Services: webhookclient.EndpointsResolver{Get: d.Objects}, KubeconfigFile: c.KubeConfigFile, Metrics: d.Metrics,
		Scheme: d.Objects.Scheme(), Log: d.Log, Static: static, Answers: d.WebhookAnswers}
}

// constructors build each plugin portcullis has from its configuration.
// The policy and webhook plugins run their static manifests (when their
// configuration names a staticManifestsDir) before the API-created objects.
func (s *Set) constructors(d Deps) map[string]func(config []byte) (any, error) {
	namespaces := matching.NamespaceGetter(d.Objects.GetNamespace)
	params := newParamSource(d.Objects)
	types := typeConverters(d.Objects)
	all := d.builtins()
	maps.Copy(all, map[string]func([]byte) (any, error){
		lifecycle.Name: func([]byte) (any, error) { return lifecycle.New(d.Objects.GetNamespace), nil },
		noderestriction.Name: func([]byte) (any, error) {
			return noderestriction.New(d.Objects, noderestriction.Options{Authorizer: d.Authorizer, DisableAudienceRestriction: !d.AudienceRestriction})
		},
		mutating.PluginName: func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "MutatingAdmissionPolicyConfiguration", d.ManifestsGate)
			if err != nil {
				return nil, err
			}
			newMAP := func(static bool, ready <-chan struct{}) (*mutating.Plugin, error) {
				return mutating.New(mutating.Options{Scheme: d.Objects.Scheme(), TypeConverter: types, Namespaces: namespaces, Params: params,
					Authorizer: d.Authorizer, Metrics: d.Metrics, Ready: ready, Static: static, Log: d.Log})
			}
			ready := make(chan struct{})
			p, err := newMAP(false, ready)
			if err != nil {
				return nil, err
			}
			s.follow(d, p, ready, mapResource, mapbResource)
			if cfg.StaticManifestsDir == "" {
				return p, nil
			}
			st, err := watchStatic(s, cfg.StaticManifestsDir, manifest.MutatingAdmissionPolicy, func() (*mutating.Plugin, error) { return newMAP(true, nil) }, d)
			if err != nil {
				return nil, err
			}
			return mutating.StaticFirst(func() *mutating.Plugin { return st.get() }, p), nil
		},
		"MutatingAdmissionWebhook": func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "WebhookAdmissionConfiguration", d.ManifestsGate)
			if err != nil {
				return nil, err
			}
			m, err := webhook.NewMutating(d.webhookOptions(cfg, false))
			if err != nil {
				return nil, err
			}
			s.follow(d, mutatingHooks{m}, nil, mwcResource)
			if cfg.StaticManifestsDir == "" {
				return m, nil
			}
			st, err := watchStatic(s, cfg.StaticManifestsDir, manifest.MutatingAdmissionWebhook, func() (mutatingHooks, error) {
				m, err := webhook.NewMutating(d.webhookOptions(cfg, true))
				return mutatingHooks{m}, err
			}, d)
			if err != nil {
				return nil, err
			}
			return webhook.MutatingStaticFirst(func() *webhook.Mutating { return st.get().Mutating }, m), nil
		},
		policy.PluginName: func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "ValidatingAdmissionPolicyConfiguration", d.ManifestsGate)
			if err != nil {
				return nil, err
			}
			newVAP := func(static bool, ready <-chan struct{}) *policy.Plugin {
				return policy.New(policy.Options{Namespaces: namespaces, Params: params, Authorizer: d.Authorizer,
					Metrics: d.Metrics, Ready: ready, Static: static, Log: d.Log})
			}
			ready := make(chan struct{})
			p := newVAP(false, ready)
			s.follow(d, p, ready, vapResource, vapbResource)
			if cfg.StaticManifestsDir == "" {
				return p, nil
			}
			st, err := watchStatic(s, cfg.StaticManifestsDir, manifest.ValidatingAdmissionPolicy, func() (*policy.Plugin, error) { return newVAP(true, nil), nil }, d)
			if err != nil {
				return nil, err
			}
			return policy.StaticFirst(func() *policy.Plugin { return st.get() }, p), nil
		},
		"ValidatingAdmissionWebhook": func(raw []byte) (any, error) {
			cfg, err := parsePluginConfig(raw, "WebhookAdmissionConfiguration", d.ManifestsGate)
			if err != nil {
				return nil, err
			}
			v, err := webhook.NewValidating(d.webhookOptions(cfg, false))
			if err != nil {
				return nil, err
			}
			s.follow(d, validatingHooks{v}, nil, vwcResource)
			if cfg.StaticManifestsDir == "" {
				return v, nil
			}
			st, err := watchStatic(s, cfg.StaticManifestsDir, manifest.ValidatingAdmissionWebhook, func() (validatingHooks, error) {
				v, err := webhook.NewValidating(d.webhookOptions(cfg, true))
				return validatingHooks{v}, err
			}, d)
			if err != nil {
				return nil, err
			}
			return webhook.ValidatingStaticFirst(func() *webhook.Validating { return st.get().Validating }, v), nil
		},
	})
	return all
}

// plugins are the plugins portcullis has, in kube-apiserver's order.
func (s *Set) plugins(d Deps) []admission.Plugin {
	build := s.constructors(d)
	var out []admission.Plugin
	for _, name := range order {
		if n, ok := build[name]; ok {
			out = append(out, admission.Plugin{Name: name, DefaultEnabled: defaultOn[name], New: n})
		}
	}
	return out
}

// typeConverters gives ApplyConfiguration mutations the schemas of custom
// kinds from their CRDs, as they are served now, and the built-in schemas
// otherwise.
func typeConverters(objs *objects.Objects) func(schema.GroupVersionKind) managedfields.TypeConverter {
	builtin := mutating.BuiltinTypeConverter(objs.Scheme())
	return func(gvk schema.GroupVersionKind) managedfields.TypeConverter {
		if res, ok := objs.ForKind(gvk); ok && res.Custom != nil {
			return res.Custom.TypeConverter
		}
		return builtin(gvk)
	}
}

// validatingHooks and mutatingHooks give the webhook plugins the
// runtime.Object Upsert and Delete of the other engines.
type validatingHooks struct{ *webhook.Validating }

func (h validatingHooks) Upsert(obj runtime.Object) {
	if c, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
		h.Validating.Upsert(c)
	}
}

func (h validatingHooks) Delete(obj runtime.Object) {
	if c, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
		h.Validating.Delete(c)
	}
}

type mutatingHooks struct{ *webhook.Mutating }

func (h mutatingHooks) Upsert(obj runtime.Object) {
	if c, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
		h.Mutating.Upsert(c)
	}
}

func (h mutatingHooks) Delete(obj runtime.Object) {
	if c, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
		h.Mutating.Delete(c)
	}
}
