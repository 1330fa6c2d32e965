package mutating

import (
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"github.com/portcullis/portcullis/internal/request"
)

// The outcomes of an invocation's part of the decision trace, beside
// "denied".
const (
	outcomeMutated   = "mutated"
	outcomeUnchanged = "unchanged"
	outcomeIgnored   = "error (failurePolicy Ignore)"
)

// part is the decision trace's part for one invocation applied, begun at
// start, that took in to out with the failures errs.
func (r *review) part(inv *invocation, phase string, start time.Time, in, out runtime.Object, errs []policyError) request.Step {
	rule := policyset.Rule(inv.policy.Name, inv.binding.Name, inv.param)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i := range errs {
			msgs[i] = errs[i].err.Error()
		}
		return errorPart(rule, phase, inv.policy, start, strings.Join(msgs, "; "))
	}
	p := request.Step{Rule: rule, Phase: phase, Outcome: outcomeUnchanged, Micros: request.Since(start)}
	// A mutation returns a new object even when it changes nothing (and
	// the one it was given for a failed JSON patch test): compare, for
	// what was applied only.
	if out != in && !equalObjects(in, out) {
		p.Outcome = outcomeMutated
	}
	return p
}

// errorPart is the part of a failure of pol, which denies the request
// unless the policy ignores failures; start zero: not timed (a
// configuration error).
func errorPart(rule, phase string, pol *compiledPolicy, start time.Time, message string) request.Step {
	p := request.Step{Rule: rule, Phase: phase, Outcome: "denied", Detail: message}
	if !start.IsZero() {
		p.Micros = request.Since(start)
	}
	if pol.FailurePolicy == admissionregistrationv1.Ignore {
		p.Outcome = outcomeIgnored
	}
	return p
}
