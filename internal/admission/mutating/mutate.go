package mutating

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// conditionsHold evaluates an invocation's match conditions against the
// object as the invocations before left it, typed, with no
// namespaceObject, as in kube-apiserver.
func (r *review) conditionsHold(v *view, inv *invocation, cur runtime.Object) (bool, error) {
	pol := inv.policy
	in := v.values.Input(pol.uses &^ (celenv.UsesObject | celenv.UsesNamespace))
	in.Object, in.Params = celenv.ObjectVal(cur, v.a.Kind), inv.params
	return dispatch.ConditionsHold(pol.Compiler.NewActivation(r.ctx, in), pol.Conditions, pol.FailurePolicy)
}

// mutationInput returns the values of a mutation's expression but object:
// objects in their unstructured form and namespaceObject with all its
// metadata, as kube-apiserver gives them to mutations.
func (r *review) mutationInput(v *view, inv *invocation) (celenv.Input, error) {
	u := inv.policy.uses
	in := v.values.Input(u &^ (celenv.UsesObject | celenv.UsesOldObject | celenv.UsesNamespace))
	in.Params = inv.params
	if u&celenv.UsesNamespace != 0 {
		in.Namespace = v.values.FullNamespace()
	}
	if u&celenv.UsesOldObject != 0 {
		if v.oldObject == nil {
			old, err := r.contentVal(v.a.OldObject, v.a.Kind)
			if err != nil {
				return in, err
			}
			v.oldObject = old
		}
		in.OldObject = v.oldObject
	}
	return in, nil
}

// mutate applies one mutation to cur, an object of the request as v has
// it, and returns the result, a new object; cur is not modified. A failed
// JSON patch test operation returns cur itself.
func (r *review) mutate(v *view, inv *invocation, m *compiledMutation, cur runtime.Object) (runtime.Object, error) {
	objs, gvk := r.p.objects, v.a.Kind
	// The schema is needed whatever the patch type, as in kube-apiserver.
	tc, err := objs.typeConverter(gvk)
	if err != nil {
		return nil, err
	}
	content, err := objs.content(cur, gvk)
	if err != nil {
		return nil, err
	}
	in, err := r.mutationInput(v, inv)
	if err != nil {
		return nil, err
	}
	in.Object = valueOf(content)
	// Each mutation has a budget of its own, and its own activation:
	// variables see the object as the mutations before left it.
	val, err := inv.policy.Compiler.NewActivation(r.ctx, in).EvalValue(m.expr, celbase.RuntimeCELCostBudget)
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
func (r *review) contentVal(obj runtime.Object, gvk schema.GroupVersionKind) (ref.Val, error) {
	if matching.IsNil(obj) {
		return types.NullValue, nil
	}
	content, err := r.p.objects.content(obj, gvk)
	if err != nil {
		return nil, err
	}
	return valueOf(content), nil
}

// valueOf returns unstructured content as a CEL value.
func valueOf(content map[string]any) ref.Val {
	return types.DefaultTypeAdapter.NativeToValue(content)
}
