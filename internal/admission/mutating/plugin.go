package mutating

import (
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"io"
	"log/slog"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/applyconfigurations"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
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
	log     *slog.Logger
	metrics *metrics
	objects *objects

	// set holds the compiled policies and bindings.
	set *policyset.Set[*compiledPolicy, *compiledBinding]
}

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
		converter = schemeTypeConverter(opts.Scheme)
	}
	defaulter := opts.Defaulter
	if defaulter == nil {
		defaulter = defaults.Apply
	}
	p := &Plugin{
		opts:    opts,
		log:     log,
		metrics: newMetrics(opts.Metrics),
		objects: newObjects(opts.Scheme, converter, defaulter),
		set:     policyset.New[*compiledPolicy, *compiledBinding](),
	}
	return p, nil
}

// schemeTypeConverter serves the built-in schemas of the kinds scheme
// knows. The schemas are parsed on first use, which takes a while.
func schemeTypeConverter(scheme *runtime.Scheme) func(schema.GroupVersionKind) managedfields.TypeConverter {
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
func (p *Plugin) Upsert(obj runtime.Object) {
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		if o == nil {
			return
		}
		p.set.PutPolicy(o.Name, func(old *compiledPolicy, ok bool) *compiledPolicy {
			if ok && apiequality.Semantic.DeepEqual(old.source.Spec, o.Spec) {
				// A status or metadata change: the compiled policy still holds.
				cp := *old
				cp.source = o
				return &cp
			}
			return compilePolicy(o)
		})
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		if o != nil {
			p.set.PutBinding(compileBinding(o))
		}
	}
}

// Delete unloads a MutatingAdmissionPolicy or
// MutatingAdmissionPolicyBinding by name.
func (p *Plugin) Delete(obj runtime.Object) {
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		if o != nil {
			p.set.DeletePolicy(o.Name)
		}
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		if o != nil {
			p.set.DeleteBinding(o.Name)
		}
	}
}

// hook is a policy with its bindings.
type hook = policyset.Entry[*compiledPolicy, *compiledBinding]

// current returns the snapshot requests read.
func (p *Plugin) current() *policyset.Snapshot[*compiledPolicy, *compiledBinding] {
	return p.set.Current()
}
