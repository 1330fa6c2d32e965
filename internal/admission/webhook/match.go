package webhook

import (
	"context"
	"time"

	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// exempt are the resources no webhook configured through the API sees:
// the reviews, which are not persisted and sit on the auth path, and the
// admission configuration kinds, which webhooks could otherwise lock
// against their own repair.
var exemptResources = map[schema.GroupResource]bool{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
}

var exemptKinds = map[string]bool{
	"ValidatingWebhookConfiguration":   true,
	"MutatingWebhookConfiguration":     true,
	"ValidatingAdmissionPolicy":        true,
	"ValidatingAdmissionPolicyBinding": true,
	"MutatingAdmissionPolicy":          true,
	"MutatingAdmissionPolicyBinding":   true,
}

// Exempt reports whether webhooks configured through the API skip a.
func Exempt(a *admission.Attributes) bool {
	return exemptResources[a.Resource.GroupResource()] ||
		(a.Kind.Group == admissionregistrationv1.GroupName && exemptKinds[a.Kind.Kind])
}

// exempt is Exempt for this plugin: static (manifest-based) webhooks also
// see the admission configuration types, which they exist to guard.
func (p *plugin) exempt(a *admission.Attributes) bool {
	if p.opts.Static {
		return exemptResources[a.Resource.GroupResource()]
	}
	return Exempt(a)
}

// invocation is a webhook that applies to a request, with the request as
// the webhook matched it: its own attributes, or under matchPolicy
// Equivalent the request converted to the version the webhook's rules
// name, which is what the webhook is sent.
type invocation struct {
	*hook
	attrs *admission.Attributes
	// p is the plugin whose configuration holds the webhook: the static
	// or the API one, when both are dispatched together (StaticFirst).
	p *plugin
	// at is the webhook's position in the dispatch, which audit
	// annotations name: among all webhooks for mutating, among the called
	// ones for validating.
	at int
}

// candidates returns the webhooks that apply to the request, in order, or
// the error that fails the request (a selector, conversion or match
// condition error). Validating webhooks are all decided before any is
// called, as kube-apiserver decides them.
func (p *plugin) candidates(ctx context.Context, a *admission.Attributes, typ string) ([]invocation, error) {
	m := p.matcher(ctx, a, typ)
	var out []invocation
	for _, h := range m.found {
		inv, ok, err := m.decide(h)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, inv)
		}
	}
	return out, nil
}

// matcher decides, one webhook at a time, whether the webhooks whose rules
// may match a request apply to it. Mutating webhooks are decided just
// before each is called, so that selectors and match conditions see what
// the webhooks before changed, as in kube-apiserver.
type matcher struct {
	p     *plugin
	ctx   context.Context
	a     *admission.Attributes
	typ   string
	req   *matching.Request
	found []*hook
	// offset is added to the webhooks' positions when another plugin's
	// webhooks are dispatched before these (MutatingStaticFirst).
	offset int
	// versioned holds the request converted once per version, as
	// kube-apiserver's versioned attributes are; reset when the object
	// changes.
	versioned map[matching.Match]*admission.Attributes
}

func (p *plugin) matcher(ctx context.Context, a *admission.Attributes, typ string) *matcher {
	m := &matcher{p: p, ctx: ctx, a: a, typ: typ}
	snap := p.reg.current()
	if snap.index.Len() == 0 || p.exempt(a) {
		return m
	}
	m.req = matching.NewRequest(ctx, a, p.opts.Namespaces)
	m.found = snap.index.Lookup(nil, m.req)
	return m
}

// changed forgets the conversions of an object a webhook has changed.
func (m *matcher) changed() { m.versioned = nil }

// decide reports whether h applies to the request as it is now, with the
// attributes h is called with.
func (m *matcher) decide(h *hook) (invocation, bool, error) {
	a := m.a
	match, ok, err := h.match.MatchAs(m.req)
	if err != nil || !ok {
		return invocation{}, false, err
	}
	va := a
	if match != matching.Own(a) {
		if va = m.versioned[match]; va == nil {
			if va, err = a.As(m.ctx, match.Resource, match.Kind); err != nil {
				return invocation{}, false, apierrors.NewInternalError(err)
			}
			if m.versioned == nil {
				m.versioned = map[matching.Match]*admission.Attributes{}
			}
			m.versioned[match] = va
		}
	}
	if len(h.conditions) > 0 {
		ok, err := m.p.conditionsHold(m.ctx, h, va, m.typ)
		if err != nil {
			return invocation{}, false, apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, err)
		}
		if !ok {
			// Labelled by kube-apiserver's webhook type ("validate" or
			// "admit"), where the errors and durations of conditions carry
			// the matcher's ("validating" or "admit").
			typ := m.typ
			if typ == "validating" {
				typ = "validate"
			}
			m.p.metrics.conditionExclusions.WithLabelValues(h.name, "webhook", typ, string(a.Operation)).Inc()
			return invocation{}, false, nil
		}
	}
	return invocation{hook: h, attrs: va, p: m.p, at: h.pos + m.offset}, true, nil
}

// conditionsHold evaluates the match conditions: one false skips the
// webhook; errors without a false follow the failure policy.
func (p *plugin) conditionsHold(ctx context.Context, h *hook, a *admission.Attributes, typ string) (bool, error) {
	start := time.Now()
	defer func() {
		p.metrics.conditionSeconds.WithLabelValues(h.name, "webhook", typ, string(a.Operation)).Observe(time.Since(start).Seconds())
	}()
	in := celenv.Input{
		Object:    celenv.ObjectVal(a.Object, a.Kind),
		OldObject: celenv.ObjectVal(a.OldObject, a.Kind),
		Request:   celenv.RequestVal(a, a.Resource, a.Kind),
	}
	in.Authorizer, in.RequestResourceAuthorizer = celenv.AuthorizerVals(a, p.opts.Authorizer)
	act := p.conditions.NewActivation(ctx, in)
	budget := int64(celbase.RuntimeCELCostBudgetMatchConditions)
	var errs []error
	for _, c := range h.conditions {
		res, left, err := act.Eval(c.expr, budget)
		if err != nil {
			if h.failurePolicy == admissionregistrationv1.Ignore {
				return false, nil
			}
			return false, err
		}
		budget = left
		if res.Err != nil {
			p.metrics.conditionErrors.WithLabelValues(h.name, "webhook", typ, string(a.Operation)).Inc()
			errs = append(errs, res.Err)
			continue
		}
		if res.Val == types.False {
			return false, nil
		}
	}
	if len(errs) > 0 {
		if h.failurePolicy == admissionregistrationv1.Ignore {
			return false, nil
		}
		return false, utilerrors.NewAggregate(errs)
	}
	return true, nil
}
