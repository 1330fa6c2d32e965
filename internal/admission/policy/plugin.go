package policy

import (
	"io"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// PluginName is the admission plugin's name.
const PluginName = "ValidatingAdmissionPolicy"

// Options are what the plugin needs from the server.
type Options struct {
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
	// to the policy and binding resources.
	Static bool
	// Ready is closed once the policies and bindings have been loaded;
	// requests wait up to ten seconds for it, then are refused. Nil: ready.
	Ready <-chan struct{}
	// Log receives diagnostics (nil: discarded).
	Log *slog.Logger
}

// Plugin is the ValidatingAdmissionPolicy admission plugin.
type Plugin struct {
	opts    Options
	cfg     dispatch.Config
	log     *slog.Logger
	metrics *metrics

	// loader compiles the policies and bindings the server hands over
	// into the set requests read.
	loader *loader
}

type loader = policyset.Handler[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding, *compiledPolicy, *compiledBinding]

var _ admission.Validator = (*Plugin)(nil)

// New returns a plugin without policies.
func New(opts Options) *Plugin {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &Plugin{
		opts:    opts,
		cfg:     dispatch.Config{Namespaces: opts.Namespaces, Params: opts.Params, Static: opts.Static, Ready: opts.Ready},
		log:     log,
		metrics: newMetrics(opts.Metrics),
		loader:  policyset.NewHandler(compilePolicy, func(o *admissionregistrationv1.ValidatingAdmissionPolicy) any { return &o.Spec }, compileBinding),
	}
	return p
}

// Upsert loads or replaces a ValidatingAdmissionPolicy or
// ValidatingAdmissionPolicyBinding, compiling it now. Other objects are
// ignored.
func (p *Plugin) Upsert(obj runtime.Object) { p.loader.Upsert(obj) }

// Delete unloads a ValidatingAdmissionPolicy or
// ValidatingAdmissionPolicyBinding by name.
func (p *Plugin) Delete(obj runtime.Object) { p.loader.Delete(obj) }

// hook is a policy with its bindings.
type hook = policyset.Entry[*compiledPolicy, *compiledBinding]
