package dispatch

import (
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// ConditionsHold evaluates a policy's match conditions with act under
// their cost budget, as kube-apiserver does: one false skips the policy;
// errors without a false fail by the failure policy, Fail returning them,
// Ignore skipping the policy.
func ConditionsHold(act *celenv.Activation, conditions []*celenv.Expression, fp admissionregistrationv1.FailurePolicyType) (bool, error) {
	fail, ignore := fp == admissionregistrationv1.Fail, fp == admissionregistrationv1.Ignore
	evals := make([]celenv.Result, len(conditions))
	budget := int64(celbase.RuntimeCELCostBudgetMatchConditions)
	var err error
	for i, c := range conditions {
		if evals[i], budget, err = act.Eval(c, budget); err != nil {
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
