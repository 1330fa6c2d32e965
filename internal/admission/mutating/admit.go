package mutating

import (
	"context"
	"fmt"
	"time"

	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"github.com/portcullis/portcullis/internal/request"
)

// Admit implements admission.Mutator: it applies the mutations of the
// policies whose bindings match the request and sets a.Object to the
// result. The object it was given is never modified.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	return dispatchAll(ctx, a, p, p)
}

// StaticFirst dispatches the static policies (static returns the set in
// force) and the API-created ones of api as kube-apiserver's one
// dispatcher over both does: static invocations first, then the API ones,
// in one review whose failures are all reported together (the first one's
// message, every one as a cause) and one reinvocation state, api's.
func StaticFirst(static func() *Plugin, api *Plugin) admission.Mutator {
	return admission.MutatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		return dispatchAll(ctx, a, api, static(), api)
	})
}

// dispatchAll reviews a with the policies of sources, in order; p evaluates
// them (options, metrics, objects and reinvocation state).
func dispatchAll(ctx context.Context, a *admission.Attributes, p *Plugin, sources ...*Plugin) error {
	switch a.Operation {
	case admission.Create, admission.Update, admission.Connect:
	default:
		// A delete has no object to mutate.
		return nil
	}
	r := &review{ctx: ctx, p: p, a: a}
	if st := request.StateFrom(ctx); st.Tracing() {
		r.trace = st
	}
	r.own = view{a: a, values: celenv.NewValues(a, p.opts.Authorizer)}
	var buf [8]*hook
	for _, src := range sources {
		req, hooks, err := dispatch.Candidates(ctx, a, src.loader.Set, &src.cfg, buf[:0])
		if len(hooks) == 0 {
			if err != nil {
				return err
			}
			continue
		}
		if r.req == nil {
			r.req = req
		}
		for _, h := range hooks {
			// Bind never fails: invocations are only collected here.
			_ = dispatch.Walk(ctx, req, src.opts.Params, h, r)
		}
	}
	if r.req == nil {
		// No policy applies: nothing to do, not even to remember.
		return nil
	}
	if len(r.invocations) > 0 {
		if err := r.run(); err != nil {
			return err
		}
	}
	return r.finish()
}

// invocation is one policy, binding and param that applies to a request.
type invocation struct {
	policy  *compiledPolicy
	binding *compiledBinding
	// match is the resource and kind the policy matched the request as.
	match matching.Match
	param runtime.Object
	// params is the CEL value of param, nil without one.
	params ref.Val
}

// policyError is one failure of a policy or binding, which denies the
// request unless the policy ignores failures.
type policyError struct {
	policy  *compiledPolicy
	binding string // empty for policy configuration errors
	err     error
	reason  metav1.StatusReason
}

// Message is kube-apiserver's text for the error.
func (e *policyError) Message() string {
	if e.binding != "" {
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy.Name, e.binding, e.err.Error())
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy.Name, e.err.Error())
}

// review is the admission of one request.
type review struct {
	ctx context.Context
	p   *Plugin
	a   *admission.Attributes
	req *matching.Request
	// trace keeps the request's decision trace, nil when it keeps none.
	trace *request.State

	invocations []invocation
	errs        []policyError
	// result is the mutated object, set when a mutation succeeded.
	result runtime.Object
	// own is the request as it came; views are the request as matched
	// through another version of its resource (matchPolicy Equivalent).
	own   view
	views map[matching.Match]*view
	ns    *corev1.Namespace
}

// view is the request as a policy matched it: its attributes (objects
// in the matched version), the variables that do not change with the
// object, and oldObject as mutations see it, converted once.
type view struct {
	a         *admission.Attributes
	values    celenv.Values
	oldObject ref.Val
}

// viewAs returns the request as matched as m.
func (r *review) viewAs(m matching.Match) (*view, error) {
	if m == matching.Own(r.a) {
		return &r.own, nil
	}
	if v, ok := r.views[m]; ok {
		return v, nil
	}
	va, err := r.a.As(r.ctx, m.Resource, m.Kind)
	if err != nil {
		return nil, err
	}
	v := &view{a: va, values: celenv.NewValues(va, r.p.opts.Authorizer)}
	v.values.SetNamespace(r.ns)
	if r.views == nil {
		r.views = map[matching.Match]*view{}
	}
	r.views[m] = v
	return v, nil
}

// Bind implements dispatch.Visitor: it adds the invocations of a binding,
// one per param.
func (r *review) Bind(pol *compiledPolicy, b *compiledBinding, m matching.Match, params []runtime.Object) error {
	for _, param := range params {
		r.invocations = append(r.invocations, invocation{policy: pol, binding: b, match: m, param: param, params: pol.ParamsVal(param)})
	}
	return nil
}

// ConfigError implements dispatch.Visitor: it records a configuration
// error of a policy (b nil) or binding.
func (r *review) ConfigError(pol *compiledPolicy, b *policyset.Binding, err error) {
	e := policyError{policy: pol}
	if b == nil {
		e.err = fmt.Errorf("failed to configure policy: %w", err)
	} else {
		e.binding = b.Name
		e.err = fmt.Errorf("failed to configure binding: %w", err)
	}
	r.errs = append(r.errs, e)
	if r.trace != nil {
		r.trace.AddPart(errorPart(policyset.Rule(pol.Name, e.binding, nil), "", pol, time.Time{}, e.err.Error()))
	}
}

// run applies the invocations in order, each to the object the ones
// before it left. An error returned is the response: the namespace
// cannot be read or an internal error; failures of the policies are
// collected for finish.
func (r *review) run() error {
	a := r.a
	ns, err := dispatch.Namespace(r.req)
	if err != nil {
		if isStatusError(err) {
			return err
		}
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, a.Namespace)
	}
	r.ns = ns
	r.own.values.SetNamespace(ns)
	rv := admission.ReinvocationFrom(r.ctx)
	st := r.p.reinvocationState(rv)
	if rv.IsReinvoke() && st.lastOutput != nil && !equalObjects(st.lastOutput, a.Object) {
		// Another plugin changed the object after this one: what may be
		// reinvoked now must be.
		st.requireReinvocation()
	}

	phase := request.PhaseMutate
	if rv.IsReinvoke() {
		phase = request.PhaseMutateReinvoked
	}
	cur := a.Object
	mutated := false
	for i := range r.invocations {
		inv := &r.invocations[i]
		pol := inv.policy
		var start time.Time
		if r.trace != nil {
			start = time.Now()
		}
		if pol.missing > 0 {
			return apierrors.NewInternalError(fmt.Errorf("expected %v compiled evaluators for policy %v, got %v",
				len(pol.mutations)+pol.missing, pol.Name, len(pol.mutations)))
		}
		v, err := r.viewAs(inv.match)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		// The invocation sees the object in the version it matched.
		obj := cur
		if v.a != a && !matching.IsNil(cur) {
			if obj, err = a.Equivalents.Convert(r.ctx, cur, v.a.Kind); err != nil {
				return apierrors.NewInternalError(err)
			}
		}
		if len(pol.Conditions) > 0 {
			ok, err := r.conditionsHold(v, inv, obj)
			if err != nil {
				r.errs = append(r.errs, policyError{policy: pol, binding: inv.binding.Name, err: err, reason: metav1.StatusReasonInvalid})
				if r.trace != nil {
					r.trace.AddPart(errorPart(policyset.Rule(pol.Name, inv.binding.Name, inv.param), phase, pol, start, err.Error()))
				}
				continue
			}
			if !ok {
				continue
			}
		}
		var key invocationKey
		if rv != nil {
			key = inv.key()
			if rv.IsReinvoke() && !st.shouldReinvoke(key) {
				continue
			}
		}
		changed := false
		in, failed := obj, len(r.errs)
		for j := range pol.mutations {
			if matching.IsNil(obj) {
				// Nothing to patch.
				continue
			}
			start := time.Now()
			next, err := r.mutate(v, inv, &pol.mutations[j], obj)
			r.p.metrics.Observe(time.Since(start), pol.Name, inv.binding.Name, errorType(err))
			if err != nil {
				if isStatusError(err) {
					return err
				}
				r.errs = append(r.errs, policyError{policy: pol, binding: inv.binding.Name, err: err, reason: metav1.StatusReasonInvalid})
				continue
			}
			obj, changed = next, true
		}
		if r.trace != nil {
			r.trace.AddPart(r.part(inv, phase, start, in, obj, r.errs[failed:]))
		}
		if changed {
			if cur, err = a.ConvertBack(r.ctx, v.a, obj); err != nil {
				return apierrors.NewInternalError(err)
			}
			mutated = true
		}
		// kube-apiserver also marks the reinvocable invocations before
		// this one for reinvocation when this one changed the object;
		// that is subsumed by what any applied mutation does below, so
		// objects are not compared here.
		if pol.ifNeeded && rv != nil {
			st.invoked(key)
		}
	}
	if mutated {
		// As kube-apiserver: any applied mutation asks for the chain's
		// reinvocation round, in which the policies that may be
		// reinvoked are.
		st.requireReinvocation()
		rv.SetShouldReinvoke()
		r.result = cur
	}
	return nil
}

// finish sets the mutated object, or returns the failures that are not
// ignored, the first one's message and reason for the response and every
// one as a cause.
func (r *review) finish() error {
	var first *policyError
	var causes []metav1.StatusCause
	for i := range r.errs {
		e := &r.errs[i]
		if e.policy.FailurePolicy == admissionregistrationv1.Ignore {
			continue
		}
		if first == nil {
			first = e
		}
		causes = append(causes, metav1.StatusCause{Message: e.Message()})
	}
	if first == nil {
		if r.result != nil {
			r.a.Object = r.result
		}
		r.p.saveOutput(admission.ReinvocationFrom(r.ctx), r.a.Object)
		return nil
	}
	err := dispatch.Forbidden(r.a, errDenied)
	err.ErrStatus.Message = first.Message()
	if first.reason != "" {
		err.ErrStatus.Reason = first.reason
	}
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, causes...)
	return err
}
