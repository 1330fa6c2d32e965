package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// The audit annotation prefixes of mutating webhooks, as kube-apiserver's.
const (
	MutationAnnotationPrefix = "mutation.webhook.admission.k8s.io/"
	PatchAnnotationPrefix    = "patch.webhook.admission.k8s.io/"
	MutatingFailedOpenPrefix = "failed-open." + MutationAnnotationPrefix
)

// Mutating is the MutatingAdmissionWebhook plugin.
type Mutating struct{ p *plugin }

var _ admission.Mutator = (*Mutating)(nil)

// NewMutating returns the plugin without configurations.
func NewMutating(opts Options) (*Mutating, error) {
	p, err := newPlugin(opts)
	if err != nil {
		return nil, err
	}
	return &Mutating{p: p}, nil
}

// Upsert adds or replaces a configuration.
func (m *Mutating) Upsert(cfg *admissionregistrationv1.MutatingWebhookConfiguration) {
	m.p.reg.set(cfg.Name, fromMutating(cfg))
}

// Delete removes a configuration.
func (m *Mutating) Delete(cfg *admissionregistrationv1.MutatingWebhookConfiguration) {
	m.p.reg.set(cfg.Name, nil)
}

// reinvokeState is the plugin's state across the chain's rounds.
type reinvokeState struct {
	lastOutput runtime.Object
	// invoked are the IfNeeded webhooks called since the object last
	// changed; reinvoke those to call in the reinvocation round.
	invoked, reinvoke map[string]bool
}

func (s *reinvokeState) requireReinvocation() {
	for id := range s.invoked {
		s.reinvoke[id] = true
	}
	clear(s.invoked)
}

// Admit calls the matching webhooks one after another, configurations by
// name and webhooks in order, applying their patches to a.Object. With a
// admission.Reinvocation in ctx it takes part in the chain's reinvocation
// round (see the package documentation).
func (m *Mutating) Admit(ctx context.Context, a *admission.Attributes) error {
	return admit(ctx, a, []*matcher{m.p.matcher(ctx, a, "admit")}, m)
}

// MutatingStaticFirst dispatches the static webhooks (static returns the
// set in force) and the API ones as kube-apiserver's one dispatcher over
// both does: static ones first, positions counted over both (the
// round_R_index_I of audit annotations), one reinvocation state.
func MutatingStaticFirst(static func() *Mutating, api *Mutating) admission.Mutator {
	key := new(int) // identifies the pair's reinvocation state
	return admission.MutatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		s := static()
		first := s.p.matcher(ctx, a, "admit")
		then := api.p.matcher(ctx, a, "admit")
		then.offset = s.p.reg.current().index.Len()
		return admit(ctx, a, []*matcher{first, then}, key)
	})
}

// admit calls the webhooks of sources in order, each decided just before
// it is called, on the object as the webhooks before it left it (as
// kube-apiserver's mutating dispatcher does); key identifies the
// dispatcher's state in the chain's reinvocation context.
func admit(ctx context.Context, a *admission.Attributes, sources []*matcher, key any) error {
	rc := admission.ReinvocationFrom(ctx)
	st, _ := rc.Value(key).(*reinvokeState)
	if st == nil {
		st = &reinvokeState{invoked: map[string]bool{}, reinvoke: map[string]bool{}}
		if rc != nil {
			rc.SetValue(key, st)
		}
	}
	round := 0
	if rc.IsReinvoke() {
		round = 1
		if !apiequality.Semantic.DeepEqual(st.lastOutput, a.Object) {
			// Another plugin changed the object since the webhooks saw it.
			st.requireReinvocation()
		}
	}
	defer func() {
		st.lastOutput = nil
		if rc != nil && !matching.IsNil(a.Object) {
			st.lastOutput = a.Object.DeepCopyObject()
		}
	}()
	for _, src := range sources {
		for _, candidate := range src.found {
			h, ok, err := src.decide(candidate)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := admitOne(ctx, a, h, round, st, rc, sources); err != nil {
				return err
			}
		}
	}
	return nil
}

// admitOne calls one webhook of admit's round.
func admitOne(ctx context.Context, a *admission.Attributes, h invocation, round int, st *reinvokeState, rc *admission.Reinvocation, sources []*matcher) error {
	i := h.at
	// Decided before this check, as kube-apiserver does: a match
	// condition error fails the reinvocation round too.
	if round == 1 && !st.reinvoke[h.id] {
		return nil
	}
	start := time.Now()
	changed, recorded, err := h.p.callOne(ctx, h, a, round, i)
	if changed {
		st.requireReinvocation()
		rc.SetShouldReinvoke()
		// The next webhooks are decided on, and see, the object as
		// this one left it, each in the version it matches.
		for _, src := range sources {
			src.changed()
		}
	}
	if h.ifNeeded {
		st.invoked[h.id] = true
	}
	callErr := err
	err = h.p.outcome(ctx, h.hook, a, "admit", callErr, start, fmt.Sprintf("%sround_%d_index_%d", MutatingFailedOpenPrefix, round, i))
	if trace := request.StateFrom(ctx); trace.Tracing() {
		phase := request.PhaseMutate
		if round == 1 {
			phase = request.PhaseMutateReinvoked
		}
		trace.AddPart(called{callErr: callErr, err: err, mutated: changed, recorded: recorded}.part(h.hook, phase, start))
	}
	if err != nil {
		return err
	}
	if callErr != nil && ctx.Err() != nil {
		// Failed open because the request itself ran out of time: no
		// point calling the rest.
		return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
	}
	return nil
}

// mutationAnnotation and patchAnnotation are the values of the audit
// annotations kube-apiserver records for each mutating webhook call.
type mutationAnnotation struct {
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook"`
	Mutated       bool   `json:"mutated"`
}

type patchAnnotation struct {
	Configuration string          `json:"configuration"`
	Webhook       string          `json:"webhook"`
	Patch         jsonpatch.Patch `json:"patch,omitempty"`
	PatchType     string          `json:"patchType,omitempty"`
}

func annotate(ctx context.Context, key string, v any) {
	st := request.StateFrom(ctx)
	if st == nil {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		st.AddAnnotation(key, string(b))
	}
}

// callOne calls one webhook with the request as it matched it and applies
// its patch there; a.Object becomes the result, converted back to the
// request's version. It reports whether the object changed, and whether
// the answer was the webhook's recorded one (Options.Answers).
func (p *plugin) callOne(ctx context.Context, inv invocation, a *admission.Attributes, round, idx int) (changed, recorded bool, err error) {
	h, va := inv.hook, inv.attrs
	defer func() {
		annotate(ctx, fmt.Sprintf("%sround_%d_index_%d", MutationAnnotationPrefix, round, idx),
			mutationAnnotation{Configuration: h.config, Webhook: h.name, Mutated: changed})
	}()
	if err := checkDryRun(h, a); err != nil {
		return false, recorded, err
	}
	resp, recorded, err := p.call(ctx, h, va, true)
	if err != nil {
		return false, recorded, err
	}
	if len(resp.Patch) == 0 {
		return false, recorded, nil
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return false, recorded, &callError{webhook: h.name, reason: fmt.Errorf("received undecodable patch in webhook response: %w", err), status: apierrors.NewServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(patch) == 0 {
		return false, recorded, nil
	}
	if matching.IsNil(va.Object) {
		return false, recorded, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		pt := ""
		if resp.PatchType != nil {
			pt = string(*resp.PatchType)
		}
		return false, recorded, &callError{webhook: h.name, reason: fmt.Errorf("unsupported patch type %q", pt), status: denied(h.name, resp.Result)}
	}
	newObj, err := p.applyPatch(patch, va.Object, va.Kind)
	if err != nil {
		return false, recorded, apierrors.NewInternalError(err)
	}
	changed = !apiequality.Semantic.DeepEqual(va.Object, newObj)
	annotate(ctx, fmt.Sprintf("%sround_%d_index_%d", PatchAnnotationPrefix, round, idx),
		patchAnnotation{Configuration: h.config, Webhook: h.name, Patch: patch, PatchType: string(admissionv1.PatchTypeJSONPatch)})
	if a.Object, err = a.ConvertBack(ctx, va, newObj); err != nil {
		return false, recorded, apierrors.NewInternalError(err)
	}
	return changed, recorded, nil
}

// applyPatch applies patch to obj's JSON and decodes the result into a
// new object of obj's type, defaulted as a decoded request body would be.
func (p *plugin) applyPatch(patch jsonpatch.Patch, obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	doc, err := encodeObject(obj, gvk)
	if err != nil {
		return nil, err
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		return nil, err
	}
	if len(patched) > webhookclient.MaxResponseBytes {
		return nil, fmt.Errorf("patched object is larger than %d bytes", webhookclient.MaxResponseBytes)
	}
	out, err := newObjectLike(obj, p.opts.Scheme, gvk)
	if err != nil {
		return nil, err
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(patched, out); err != nil {
		return nil, err
	}
	if s := p.opts.Scheme; s != nil {
		s.Default(out)
	}
	if _, unstr := out.(*unstructured.Unstructured); !unstr && obj.GetObjectKind().GroupVersionKind().Empty() {
		// Keep the convention of the object handed in.
		out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	return out, nil
}
