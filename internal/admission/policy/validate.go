package policy

import (
	"context"
	"time"

	"github.com/google/cel-go/common/types/ref"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/request"
)

// readyTimeout is how long a request waits for the policies to load.
const readyTimeout = 10 * time.Second

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if Exempt(a.Resource.GroupResource(), p.opts.Static) {
		return nil
	}
	if !p.waitReady(ctx) {
		return forbidden(a, ErrNotReady)
	}
	req := matching.NewRequest(ctx, a, p.opts.Namespaces)
	var buf [8]*hook
	hooks := p.current().Index.Lookup(buf[:0], req)
	if len(hooks) == 0 {
		return nil
	}
	d := &dispatch{ctx: ctx, p: p, a: a, req: req, state: request.StateFrom(ctx)}
	for _, h := range hooks {
		if err := d.policy(h); err != nil {
			return err
		}
	}
	return d.finish()
}

func (p *Plugin) waitReady(ctx context.Context) bool {
	if p.opts.Ready == nil {
		return true
	}
	select {
	case <-p.opts.Ready:
		return true
	default:
	}
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-p.opts.Ready:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// dispatch is the evaluation of one request.
type dispatch struct {
	ctx   context.Context
	p     *Plugin
	a     *admission.Attributes
	req   *matching.Request
	state *request.State

	in       inputs
	denied   []denial
	failures []ValidationFailure
}

// denial is a decision that denies the request.
type denial struct {
	policy, binding string // binding is empty for policy errors
	message         string
	reason          metav1.StatusReason
}

// policy evaluates one policy against the request. An error aborts the
// request: the namespace could not be read.
func (d *dispatch) policy(h *hook) error {
	pol := h.Policy
	ok, err := pol.match.Matches(d.req)
	if err != nil {
		d.configError(pol, nil, err)
		return nil
	}
	if !ok {
		return nil
	}
	namespaced := false
	if pol.paramKind != nil {
		if d.p.opts.Params == nil {
			err = params.UnresolvedKindError(*pol.paramKind)
		} else if namespaced, err = d.p.opts.Params.Namespaced(*pol.paramKind); err != nil {
			err = params.UnresolvedKindError(*pol.paramKind)
		}
		if err != nil {
			d.configError(pol, nil, err)
			return nil
		}
	}
	var annotations annotationCollector
	var buf [4]*compiledBinding
	for _, b := range h.Bindings.Lookup(buf[:0], d.req) {
		ok, err := b.match.Matches(d.req)
		if err != nil {
			d.configError(pol, b, err)
			continue
		}
		if !ok {
			continue
		}
		ps, err := params.Collect(d.ctx, d.p.opts.Params, pol.paramKind, namespaced, b.paramRef, d.a.Namespace)
		if err != nil {
			d.configError(pol, b, err)
			continue
		}
		if err := d.lookupNamespace(); err != nil {
			return err
		}
		for _, param := range ps {
			var pv ref.Val
			if param != nil {
				pv = celenv.ParamsVal(param, *pol.paramKind)
			}
			in, fullNamespace := d.input(pol, pv)
			d.apply(pol, b, pol.evaluate(d.ctx, in, fullNamespace, d.p.log), &annotations)
		}
	}
	annotations.publish(d.state, pol.name)
	return nil
}
