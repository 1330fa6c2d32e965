package mutating

import (
	"io"
	"log/slog"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/applyconfigurations"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"github.com/portcullis/portcullis/internal/defaults"
)

// PluginName is the admission plugin's name.
const PluginName = "MutatingAdmissionPolicy"

// Options are what the plugin needs from the server.
type Options struct {
	// Scheme creates, converts and decodes the typed objects mutations
	// produce. Required.
	Scheme *runtime.Scheme
	// TypeConverter returns the structured-merge-diff converter of a kind,
	// for ApplyConfiguration mutations, or nil when the kind's schema is
	// unknown (requests on it then fail with 503, as in kube-apiserver).
	// Nil: the built-in schemas (k8s.io/client-go/applyconfigurations) for
	// the kinds Scheme knows.
	TypeConverter func(schema.GroupVersionKind) managedfields.TypeConverter
	// Defaulter fills in defaulted fields of a typed object after each
	// mutation. Nil: defaults.Apply.
	Defaulter func(runtime.Object)
	// Namespaces reads namespaces, for namespace selectors and
	// namespaceObject; NotFound as an apierrors error. Nil: no namespace
	// exists.
	Namespaces matching.NamespaceGetter
	// Params reads param objects. Nil: no paramKind can be resolved.
	Params params.Source
	// Authorizer answers the CEL authorizer variable. Nil: expressions
	// that use it fail.
	Authorizer authorizer.UnconditionalAuthorizer
	// Metrics registers the check metrics (nil: not exported).
	Metrics prometheus.Registerer
	// Static marks the plugin of manifest-based policies, which also apply
	// to the admission policy resources.
	Static bool
	// Ready is closed once the policies and bindings have been loaded;
	// requests wait up to ten seconds for it, then are refused. Nil: ready.
	Ready <-chan struct{}
	// Log receives diagnostics (nil: discarded).
	Log *slog.Logger
}

// Plugin is the MutatingAdmissionPolicy admission plugin.
type Plugin struct {
	opts    Options
	cfg     dispatch.Config
	log     *slog.Logger
	metrics *metrics
	objects *objects

	// loader compiles the policies and bindings the server hands over
	// into the set requests read.
	loader *loader
}

type loader = policyset.Handler[*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding, *compiledPolicy, *compiledBinding]

var _ admission.Mutator = (*Plugin)(nil)

// New returns a plugin without policies.
func New(opts Options) (*Plugin, error) {
	if opts.Scheme == nil {
		return nil, ErrNoScheme
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	converter := opts.TypeConverter
	if converter == nil {
		converter = BuiltinTypeConverter(opts.Scheme)
	}
	defaulter := opts.Defaulter
	if defaulter == nil {
		defaulter = defaults.Apply
	}
	p := &Plugin{
		opts:    opts,
		cfg:     dispatch.Config{Namespaces: opts.Namespaces, Params: opts.Params, Static: opts.Static, Ready: opts.Ready},
		log:     log,
		metrics: newMetrics(opts.Metrics),
		objects: newObjects(opts.Scheme, converter, defaulter),
		loader:  policyset.NewHandler(compilePolicy, func(o *admissionregistrationv1.MutatingAdmissionPolicy) any { return &o.Spec }, compileBinding),
	}
	return p, nil
}

// BuiltinTypeConverter serves the built-in schemas of the kinds scheme
// knows, nil for others; the default of Options.TypeConverter. The
// schemas are parsed on first use, which takes a while.
func BuiltinTypeConverter(scheme *runtime.Scheme) func(schema.GroupVersionKind) managedfields.TypeConverter {
	tc := sync.OnceValue(func() managedfields.TypeConverter { return applyconfigurations.NewTypeConverter(scheme) })
	return func(gvk schema.GroupVersionKind) managedfields.TypeConverter {
		if !scheme.Recognizes(gvk) {
			return nil
		}
		return tc()
	}
}

// Upsert loads or replaces a MutatingAdmissionPolicy or
// MutatingAdmissionPolicyBinding, compiling it now. Other objects are
// ignored.
func (p *Plugin) Upsert(obj runtime.Object) { p.loader.Upsert(obj) }

// Delete unloads a MutatingAdmissionPolicy or
// MutatingAdmissionPolicyBinding by name.
func (p *Plugin) Delete(obj runtime.Object) { p.loader.Delete(obj) }

// hook is a policy with its bindings.
type hook = policyset.Entry[*compiledPolicy, *compiledBinding]
