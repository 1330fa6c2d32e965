package mutating

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// matchConditionsHold evaluates an invocation's match conditions against
// the object as the invocations before left it: one false skips the
// invocation, errors without a false fail by the failure policy (an error
// returned fails it; Ignore skips it).
func (d *dispatch) matchConditionsHold(inv *invocation, cur runtime.Object) (bool, error) {
	pol := inv.policy
	in, err := d.input(inv, pol.uses, false)
	if err != nil {
		return false, err
	}
	in.Object = celenv.ObjectVal(cur, d.a.Kind)
	act := pol.compiler.NewActivation(d.ctx, in)
	fail := pol.failurePolicy == admissionregistrationv1.Fail
	ignore := pol.failurePolicy == admissionregistrationv1.Ignore
	evals := make([]celenv.Result, len(pol.matchConditions))
	budget := int64(celconfig.RuntimeCELCostBudgetMatchConditions)
	for i, e := range pol.matchConditions {
		if evals[i], budget, err = act.Eval(e, budget); err != nil {
			break
		}
	}
	if err != nil {
		switch {
		case fail:
			return false, err
		case ignore:
			return false, nil
		}
		// kube-apiserver goes on with no results for any other policy.
		evals = nil
	}
	var errs []error
	for i := range evals {
		if evals[i].Err != nil {
			errs = append(errs, evals[i].Err)
		}
		if evals[i].Val == types.False {
			return false, nil
		}
	}
	if len(errs) > 0 {
		switch {
		case fail:
			return false, utilerrors.NewAggregate(errs)
		case ignore:
			return false, nil
		}
	}
	return true, nil
}

// mutate applies one mutation to cur and returns the result, a new
// object; cur is not modified. A failed JSON patch test operation returns
// cur itself.
func (d *dispatch) mutate(inv *invocation, m *mutationExpr, cur runtime.Object) (runtime.Object, error) {
	objs, gvk := d.p.objects, d.a.Kind
	// The schema is needed whatever the patch type, as in kube-apiserver.
	tc, err := objs.typeConverter(gvk)
	if err != nil {
		return nil, err
	}
	content, err := objs.content(cur, gvk)
	if err != nil {
		return nil, err
	}
	in, err := d.input(inv, inv.policy.uses, true)
	if err != nil {
		return nil, err
	}
	in.Object = valueOf(content)
	val, err := inv.policy.newActivation(d.ctx, in).eval(m, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return nil, err
	}
	switch m.patchType {
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		patch, err := applyConfiguration(val)
		if err != nil {
			return nil, err
		}
		patch["apiVersion"], patch["kind"] = content["apiVersion"], content["kind"]
		merged, err := mergeApplyConfiguration(tc, content, patch)
		if err != nil {
			return nil, fmt.Errorf("error applying patch: %w", err)
		}
		return objs.object(merged, cur, gvk)
	default:
		ops, err := jsonPatchOps(val)
		if err != nil {
			return nil, err
		}
		doc, err := json.Marshal(content)
		if err != nil {
			return nil, fmt.Errorf("failed to create JSON patch: %w", err)
		}
		patched, err := applyJSONPatch(ops, doc)
		if errors.Is(err, errTestFailed) {
			// A failed test leaves the object as it was.
			return cur, nil
		}
		if err != nil {
			return nil, fmt.Errorf("JSON Patch: %w", err)
		}
		return objs.decode(patched, cur, gvk)
	}
}

// contentVal returns obj's unstructured form as a CEL value (null for
// nil), as kube-apiserver gives objects to mutations.
func (d *dispatch) contentVal(obj runtime.Object) (ref.Val, error) {
	if matching.IsNil(obj) {
		return types.NullValue, nil
	}
	content, err := d.p.objects.content(obj, d.a.Kind)
	if err != nil {
		return nil, err
	}
	return valueOf(content), nil
}

// valueOf returns unstructured content as a CEL value.
func valueOf(content map[string]any) ref.Val {
	return types.DefaultTypeAdapter.NativeToValue(content)
}
