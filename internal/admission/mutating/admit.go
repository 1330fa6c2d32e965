package mutating

import (
	"context"
	"fmt"
	"time"

	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
)

// readyTimeout is how long a request waits for the policies to load.
const readyTimeout = 10 * time.Second

// Admit implements admission.Mutator: it applies the mutations of the
// policies whose bindings match the request and sets a.Object to the
// result. The object it was given is never modified.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	switch a.Operation {
	case admission.Create, admission.Update, admission.Connect:
	default:
		// A delete has no object to mutate.
		return nil
	}
	if policy.Exempt(a.Resource.GroupResource(), p.opts.Static) {
		return nil
	}
	if !p.waitReady(ctx) {
		return forbidden(a, policy.ErrNotReady)
	}
	req := matching.NewRequest(ctx, a, p.opts.Namespaces)
	var buf [8]*hook
	hooks := p.current().Index.Lookup(buf[:0], req)
	if len(hooks) == 0 {
		return nil
	}
	d := &dispatch{ctx: ctx, p: p, a: a, req: req}
	for _, h := range hooks {
		d.collect(h)
	}
	if len(d.invocations) > 0 {
		if err := d.run(); err != nil {
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

// invocation is one policy, binding and param that applies to a request.
type invocation struct {
	policy  *compiledPolicy
	binding *compiledBinding
	param   runtime.Object
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
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy.name, e.binding, e.err.Error())
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy.name, e.err.Error())
}

// dispatch is the admission of one request.
type dispatch struct {
	ctx context.Context
	p   *Plugin
	a   *admission.Attributes
	req *matching.Request

	invocations []invocation
	errs        []policyError
	// result is the mutated object, set when a mutation succeeded.
	result runtime.Object
	in     inputs
}

// collect adds the invocations of one policy, or its configuration errors.
func (d *dispatch) collect(h *hook) {
	pol := h.Policy
	ok, err := pol.match.Matches(d.req)
	if err != nil {
		d.configError(pol, nil, err)
		return
	}
	if !ok {
		return
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
			return
		}
	}
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
		for _, param := range ps {
			inv := invocation{policy: pol, binding: b, param: param}
			if param != nil {
				inv.params = celenv.ParamsVal(param, *pol.paramKind)
			}
			d.invocations = append(d.invocations, inv)
		}
	}
}

// configError records a configuration error of a policy (b nil) or
// binding.
func (d *dispatch) configError(pol *compiledPolicy, b *compiledBinding, err error) {
	e := policyError{policy: pol}
	if b == nil {
		e.err = fmt.Errorf("failed to configure policy: %w", err)
	} else {
		e.binding = b.name
		e.err = fmt.Errorf("failed to configure binding: %w", err)
	}
	d.errs = append(d.errs, e)
}

// namespaceKind is the kind whose objects have no namespaceObject.
var namespaceKind = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}

// run applies the invocations in order, each to the object the ones
// before it left. An error returned is the response: the namespace
// cannot be read or an internal error; failures of the policies are
// collected for finish.
func (d *dispatch) run() error {
	a := d.a
	if a.Namespace != "" && a.Kind != namespaceKind {
		ns, err := d.req.Namespace(a.Namespace)
		if err != nil {
			if isStatusError(err) {
				return err
			}
			return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, a.Namespace)
		}
		d.in.ns = ns
	}
	r := admission.ReinvocationFrom(d.ctx)
	st := d.p.reinvocationState(r)
	if r.IsReinvoke() && st.lastOutput != nil && !equalObjects(st.lastOutput, a.Object) {
		// Another plugin changed the object after this one: what may be
		// reinvoked now must be.
		st.requireReinvocation()
	}

	cur := a.Object
	mutated := false
	for i := range d.invocations {
		inv := &d.invocations[i]
		pol := inv.policy
		if pol.missing > 0 {
			return apierrors.NewInternalError(fmt.Errorf("expected %v compiled evaluators for policy %v, got %v",
				len(pol.source.Spec.Mutations), pol.name, len(pol.mutations)))
		}
		if len(pol.matchConditions) > 0 {
			ok, err := d.matchConditionsHold(inv, cur)
			if err != nil {
				d.errs = append(d.errs, policyError{policy: pol, binding: inv.binding.name, err: err, reason: metav1.StatusReasonInvalid})
				continue
			}
			if !ok {
				continue
			}
		}
		var key invocationKey
		if r != nil {
			key = inv.key()
			if r.IsReinvoke() && !st.shouldReinvoke(key) {
				continue
			}
		}
		for _, m := range pol.mutations {
			if matching.IsNil(cur) {
				// Nothing to patch.
				continue
			}
			start := time.Now()
			next, err := d.mutate(inv, m, cur)
			d.p.metrics.observe(pol.name, inv.binding.name, err, time.Since(start))
			if err != nil {
				if isStatusError(err) {
					return err
				}
				d.errs = append(d.errs, policyError{policy: pol, binding: inv.binding.name, err: err, reason: metav1.StatusReasonInvalid})
				continue
			}
			cur, mutated = next, true
		}
		// kube-apiserver also marks the reinvocable invocations before
		// this one for reinvocation when this one changed the object;
		// that is subsumed by what any applied mutation does below, so
		// objects are not compared here.
		if pol.ifNeeded && r != nil {
			st.invoked(key)
		}
	}
	if mutated {
		// As kube-apiserver: any applied mutation asks for the chain's
		// reinvocation round, in which the policies that may be
		// reinvoked are.
		st.requireReinvocation()
		r.SetShouldReinvoke()
		d.result = cur
	}
	return nil
}

// finish sets the mutated object, or returns the failures that are not
// ignored, the first one's message and reason for the response and every
// one as a cause.
func (d *dispatch) finish() error {
	var first *policyError
	var causes []metav1.StatusCause
	for i := range d.errs {
		e := &d.errs[i]
		if e.policy.failurePolicy == admissionregistrationv1.Ignore {
			continue
		}
		if first == nil {
			first = e
		}
		causes = append(causes, metav1.StatusCause{Message: e.Message()})
	}
	if first == nil {
		if d.result != nil {
			d.a.Object = d.result
		}
		d.p.saveOutput(admission.ReinvocationFrom(d.ctx), d.a.Object)
		return nil
	}
	err := forbidden(d.a, errDenied)
	err.ErrStatus.Message = first.Message()
	if first.reason != "" {
		err.ErrStatus.Reason = first.reason
	}
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, causes...)
	return err
}

// forbidden is kube-apiserver's admission error: 403 on the resource and
// the object's name (its generateName before one is generated).
func forbidden(a *admission.Attributes, err error) *apierrors.StatusError {
	name := a.Name
	if name == "" {
		name = "Unknown"
		if !matching.IsNil(a.Object) {
			if m, merr := meta.Accessor(a.Object); merr != nil {
				name = "Unknown/errorGettingName"
			} else if m.GetName() != "" {
				name = m.GetName()
			} else if m.GetGenerateName() != "" {
				name = m.GetGenerateName()
			}
		}
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), name, err)
}

// inputs are the request's CEL values that do not change with the
// object, each converted the first time a policy reads it.
type inputs struct {
	ns *corev1.Namespace
	// have marks the values below that were converted.
	have                      celenv.Uses
	request, namespace        ref.Val
	oldObject, oldObjectTyped ref.Val
	authz, requestResource    ref.Val
}

// input returns the values for an expression that reads u: mutations
// see objects in their unstructured form and namespaceObject, match
// conditions see typed objects and no namespaceObject, as in
// kube-apiserver.
func (d *dispatch) input(inv *invocation, u celenv.Uses, forMutation bool) (celenv.Input, error) {
	in, a := &d.in, d.a
	out := celenv.Input{Params: inv.params}
	if u&celenv.UsesRequest != 0 {
		if in.have&celenv.UsesRequest == 0 {
			in.request = celenv.RequestVal(a, a.Resource, a.Kind)
			in.have |= celenv.UsesRequest
		}
		out.Request = in.request
	}
	if u&(celenv.UsesAuthorizer|celenv.UsesRequestResourceAuthorizer) != 0 {
		if in.have&celenv.UsesAuthorizer == 0 {
			if az := d.p.opts.Authorizer; az != nil {
				in.authz, in.requestResource = celenv.AuthorizerVals(a, celenv.NewCachingAuthorizer(az))
			}
			in.have |= celenv.UsesAuthorizer
		}
		out.Authorizer, out.RequestResourceAuthorizer = in.authz, in.requestResource
	}
	if !forMutation {
		if u&celenv.UsesOldObject != 0 {
			if in.oldObjectTyped == nil {
				in.oldObjectTyped = celenv.ObjectVal(a.OldObject, a.Kind)
			}
			out.OldObject = in.oldObjectTyped
		}
		return out, nil
	}
	if u&celenv.UsesNamespace != 0 {
		if in.have&celenv.UsesNamespace == 0 {
			in.namespace = celenv.FullNamespaceVal(in.ns)
			in.have |= celenv.UsesNamespace
		}
		out.Namespace = in.namespace
	}
	if u&celenv.UsesOldObject != 0 {
		if in.have&celenv.UsesOldObject == 0 {
			v, err := d.contentVal(a.OldObject)
			if err != nil {
				return out, err
			}
			in.oldObject = v
			in.have |= celenv.UsesOldObject
		}
		out.OldObject = in.oldObject
	}
	return out, nil
}
