package policy

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/request"
)

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	return validateAll(ctx, a, p, p)
}

// StaticFirst dispatches the static policies (static returns the set in
// force) and the API-created ones of api as kube-apiserver's one
// dispatcher over both does: every policy is evaluated, static ones first,
// so the warnings and audit annotations of both are published (one
// validation_failure annotation for all) and the first denial, a static
// one if any, is the response.
func StaticFirst(static func() *Plugin, api *Plugin) admission.Validator {
	return admission.ValidatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		return validateAll(ctx, a, api, static(), api)
	})
}

// validateAll reviews a with the policies of sources, in order; p
// evaluates them.
func validateAll(ctx context.Context, a *admission.Attributes, p *Plugin, sources ...*Plugin) error {
	var r *review
	var buf [8]*hook
	for _, src := range sources {
		req, hooks, err := dispatch.Candidates(ctx, a, src.loader.Set, &src.cfg, buf[:0])
		if len(hooks) == 0 {
			if err != nil {
				return err
			}
			continue
		}
		if r == nil {
			st := request.StateFrom(ctx)
			r = &review{ctx: ctx, p: p, a: a, req: req, state: st, tracing: st.Tracing(), values: celenv.NewValues(a, p.opts.Authorizer)}
		}
		for _, h := range hooks {
			r.annotations = annotationCollector{}
			if err := dispatch.Walk(ctx, req, src.opts.Params, h, r); err != nil {
				return err
			}
			r.annotations.publish(r.state, h.Policy.Name)
		}
	}
	if r == nil {
		return nil
	}
	return r.finish()
}

// review is the validation of one request.
type review struct {
	ctx   context.Context
	p     *Plugin
	a     *admission.Attributes
	req   *matching.Request
	state *request.State
	// tracing records a part of the decision trace per evaluation.
	tracing bool

	values celenv.Values
	// versioned are the values of the request as matched through another
	// version of its resource (matchPolicy Equivalent), by that match.
	versioned map[matching.Match]*celenv.Values
	nsLooked  bool
	ns        *corev1.Namespace
	// annotations are those of the policy being evaluated.
	annotations annotationCollector
	denied      []denial
	failures    []ValidationFailure
}

// Bind implements dispatch.Visitor: it evaluates the policy once per
// param, on the request as the policy matched it, and enforces the
// results by the binding's actions. An error aborts the request: the
// namespace could not be read.
func (r *review) Bind(pol *compiledPolicy, b *compiledBinding, m matching.Match, params []runtime.Object) error {
	if err := r.lookupNamespace(); err != nil {
		return err
	}
	vals, err := r.valuesAs(m)
	if err != nil {
		r.ConfigError(pol, b.Common(), fmt.Errorf("failed to convert object version: %w", err))
		return nil
	}
	for _, param := range params {
		var start time.Time
		if r.tracing {
			start = time.Now()
		}
		in, fullNamespace := r.input(vals, pol)
		in.Params = pol.ParamsVal(param)
		res := pol.evaluate(r.ctx, in, fullNamespace, r.p.log)
		r.apply(pol, b, res)
		if r.tracing {
			if p, ok := part(pol, b, param, &res, start); ok {
				r.state.AddPart(p)
			}
		}
	}
	return nil
}

// valuesAs returns the values of the request as matched as m, its
// objects converted to m's version once per request.
func (r *review) valuesAs(m matching.Match) (*celenv.Values, error) {
	if m == matching.Own(r.a) {
		return &r.values, nil
	}
	if v, ok := r.versioned[m]; ok {
		return v, nil
	}
	va, err := r.a.As(r.ctx, m.Resource, m.Kind)
	if err != nil {
		return nil, err
	}
	v := celenv.NewValues(va, r.p.opts.Authorizer)
	v.SetNamespace(r.ns)
	if r.versioned == nil {
		r.versioned = map[matching.Match]*celenv.Values{}
	}
	r.versioned[m] = &v
	return &v, nil
}
