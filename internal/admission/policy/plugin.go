package policy

import (
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"io"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
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
	log     *slog.Logger
	metrics *metrics

	// set holds the compiled policies and bindings.
	set *policyset.Set[*compiledPolicy, *compiledBinding]
}

var _ admission.Validator = (*Plugin)(nil)

// New returns a plugin without policies.
func New(opts Options) *Plugin {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &Plugin{
		opts:    opts,
		log:     log,
		metrics: newMetrics(opts.Metrics),
		set:     policyset.New[*compiledPolicy, *compiledBinding](),
	}
	return p
}

// Upsert loads or replaces a ValidatingAdmissionPolicy or
// ValidatingAdmissionPolicyBinding, compiling it now. Other objects are
// ignored.
func (p *Plugin) Upsert(obj runtime.Object) {
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
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
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		if o != nil {
			p.set.PutBinding(compileBinding(o))
		}
	}
}

// Delete unloads a ValidatingAdmissionPolicy or
// ValidatingAdmissionPolicyBinding by name.
func (p *Plugin) Delete(obj runtime.Object) {
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		if o != nil {
			p.set.DeletePolicy(o.Name)
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
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

// excludedResources are never subject to policies: non-persisted reviews
// whose interception could lock clients out of the cluster.
var excludedResources = map[schema.GroupResource]bool{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
}

// policyResources are exempt from policies created through the API, which
// could otherwise prevent their own repair.
var policyResources = map[schema.GroupResource]bool{
	{Group: admissionregistrationv1.GroupName, Resource: "validatingadmissionpolicies"}:       true,
	{Group: admissionregistrationv1.GroupName, Resource: "validatingadmissionpolicybindings"}: true,
	{Group: admissionregistrationv1.GroupName, Resource: "mutatingadmissionpolicies"}:         true,
	{Group: admissionregistrationv1.GroupName, Resource: "mutatingadmissionpolicybindings"}:   true,
}

// Exempt reports whether requests on gr bypass policies: reviews always,
// the admission policy resources unless static.
func Exempt(gr schema.GroupResource, static bool) bool {
	return excludedResources[gr] || (!static && policyResources[gr])
}
