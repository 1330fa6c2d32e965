package policy

import (
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
	"github.com/portcullis/portcullis/internal/request"
)

// The outcomes of a binding's part of the decision trace, beside
// "admitted" and "denied".
const (
	outcomeWarned  = "warned"
	outcomeAudited = "audited"
	outcomeIgnored = "error (failurePolicy Ignore)"
)

// part is the decision trace's part for one evaluation, begun at start,
// of pol for binding b and param: what the binding's validation actions
// made of its failures, which Detail lists. false: the policy's match
// conditions excluded the request, nothing was evaluated.
func part(pol *compiledPolicy, b *compiledBinding, param runtime.Object, res *result, start time.Time) (request.Step, bool) {
	if len(res.decisions) == 0 && len(res.annotations) == 0 {
		return request.Step{}, false
	}
	var msgs []string
	failed, ignored, annotationFailed := false, false, false
	for i := range res.decisions {
		d := &res.decisions[i]
		switch {
		case d.action == actionDeny:
			failed = true
			msgs = append(msgs, d.message)
		case d.evaluation == evalError:
			ignored = true
			msgs = append(msgs, d.message)
		}
	}
	for i := range res.annotations {
		if an := &res.annotations[i]; an.action == annotationError {
			annotationFailed = true
			msgs = append(msgs, an.err)
		}
	}
	p := request.Step{Rule: policyset.Rule(pol.Name, b.Name, param), Outcome: "admitted", Detail: strings.Join(msgs, "; "), Micros: request.Since(start)}
	switch {
	case annotationFailed:
		// An audit annotation that fails denies whatever the actions.
		p.Outcome = "denied"
	case failed:
		p.Outcome = actionsOutcome(b.actions)
	case ignored:
		p.Outcome = outcomeIgnored
	}
	return p, true
}

// actionsOutcome is what failed validations came to under actions.
func actionsOutcome(actions []admissionregistrationv1.ValidationAction) string {
	var out []string
	for _, act := range actions {
		switch act {
		case admissionregistrationv1.Deny:
			return "denied"
		case admissionregistrationv1.Warn:
			out = append(out, outcomeWarned)
		case admissionregistrationv1.Audit:
			out = append(out, outcomeAudited)
		}
	}
	if len(out) == 0 {
		return "admitted"
	}
	return strings.Join(out, ", ")
}

// configPart is the decision trace's part for a configuration error of
// pol (binding "") or of one of its bindings.
func configPart(pol *compiledPolicy, binding string, message string) request.Step {
	p := request.Step{Rule: policyset.Rule(pol.Name, binding, nil), Outcome: "denied", Detail: message}
	if pol.FailurePolicy == admissionregistrationv1.Ignore {
		p.Outcome = outcomeIgnored
	}
	return p
}
