package policy

import (
	"cmp"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

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

	// mu guards the loaded policies and bindings and the rebuild of snap.
	mu       sync.Mutex
	policies map[string]*compiledPolicy
	bindings map[string]*compiledBinding
	dirty    atomic.Bool
	snap     atomic.Pointer[snapshot]
}

var _ admission.Validator = (*Plugin)(nil)

// New returns a plugin without policies.
func New(opts Options) *Plugin {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &Plugin{
		opts:     opts,
		log:      log,
		metrics:  newMetrics(opts.Metrics),
		policies: map[string]*compiledPolicy{},
		bindings: map[string]*compiledBinding{},
	}
	p.snap.Store(&snapshot{index: matching.NewIndex[*hook]()})
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
		p.mu.Lock()
		old := p.policies[o.Name]
		p.mu.Unlock()
		var c *compiledPolicy
		if old != nil && apiequality.Semantic.DeepEqual(old.source.Spec, o.Spec) {
			// A status or metadata change: the compiled policy still holds.
			cp := *old
			cp.source = o
			c = &cp
		} else {
			c = compilePolicy(o)
		}
		p.mu.Lock()
		p.policies[o.Name] = c
		p.dirty.Store(true)
		p.mu.Unlock()
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		if o == nil {
			return
		}
		c := compileBinding(o)
		p.mu.Lock()
		p.bindings[o.Name] = c
		p.dirty.Store(true)
		p.mu.Unlock()
	}
}

// Delete unloads a ValidatingAdmissionPolicy or
// ValidatingAdmissionPolicyBinding by name.
func (p *Plugin) Delete(obj runtime.Object) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		if o != nil {
			delete(p.policies, o.Name)
			p.dirty.Store(true)
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		if o != nil {
			delete(p.bindings, o.Name)
			p.dirty.Store(true)
		}
	}
}

// snapshot is the immutable state requests read.
type snapshot struct {
	// index holds the policies that have bindings.
	index *matching.Index[*hook]
}

// hook is a policy with its bindings.
type hook struct {
	policy   *compiledPolicy
	bindings *matching.Index[*compiledBinding]
}

// current returns the snapshot, rebuilding it after changes.
func (p *Plugin) current() *snapshot {
	if p.dirty.Load() {
		p.mu.Lock()
		if p.dirty.Load() {
			p.snap.Store(p.build())
			p.dirty.Store(false)
		}
		p.mu.Unlock()
	}
	return p.snap.Load()
}

// build indexes the policies that have bindings, in name order, and each
// policy's bindings, in name order. Called with mu held.
func (p *Plugin) build() *snapshot {
	byPolicy := map[string][]*compiledBinding{}
	for _, b := range p.bindings {
		if _, ok := p.policies[b.policyName]; ok {
			byPolicy[b.policyName] = append(byPolicy[b.policyName], b)
		}
	}
	names := make([]string, 0, len(byPolicy))
	for n := range byPolicy {
		names = append(names, n)
	}
	slices.Sort(names)
	idx := matching.NewIndex[*hook]()
	for _, n := range names {
		pol := p.policies[n]
		if pol.dropped {
			continue
		}
		bs := byPolicy[n]
		slices.SortFunc(bs, func(a, b *compiledBinding) int { return cmp.Compare(a.name, b.name) })
		h := &hook{policy: pol, bindings: matching.NewIndex[*compiledBinding]()}
		for _, b := range bs {
			h.bindings.Add(b, b.match)
		}
		idx.Add(h, pol.match)
	}
	return &snapshot{index: idx}
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
