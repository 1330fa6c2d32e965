package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

func (p *compiledPolicy) errorAction() action {
	if p.FailurePolicy == admissionregistrationv1.Ignore {
		return actionAdmit
	}
	return actionDeny
}

func (p *compiledPolicy) errorResult(msg string) result {
	return result{decisions: []decision{{action: p.errorAction(), evaluation: evalError, message: msg}}}
}

// evaluate runs the policy for one binding and param, as kube-apiserver's
// validator does. in holds the values the policy reads, namespaceObject
// as validations see it; audit annotations see fullNamespace.
func (p *compiledPolicy) evaluate(ctx context.Context, in celenv.Input, fullNamespace ref.Val, log *slog.Logger) result {
	if len(p.Conditions) > 0 {
		mc := in
		mc.Namespace = nil // kube-apiserver gives match conditions no namespaceObject
		matches, err := dispatch.ConditionsHold(p.Compiler.NewActivation(ctx, mc), p.Conditions, p.FailurePolicy)
		if err != nil {
			return p.errorResult(err.Error())
		}
		if !matches {
			return result{}
		}
	}

	act := p.Compiler.NewActivation(ctx, in)
	// Messages and audit annotations may not use the authorizer.
	noAuthz := in
	noAuthz.Authorizer, noAuthz.RequestResourceAuthorizer = nil, nil
	evals := make([]celenv.Result, len(p.validations))
	budget := int64(celbase.RuntimeCELCostBudget)
	var err error
	for i := range p.validations {
		if evals[i], budget, err = act.Eval(p.validations[i].expr, budget); err != nil {
			return p.errorResult(err.Error())
		}
	}
	// Messages are evaluated for every validation, passed or not, on what
	// the validations left of the budget.
	var msgs []celenv.Result
	var msgErr error
	if p.hasMessageExpressions {
		msgAct := p.Compiler.NewActivation(ctx, noAuthz)
		msgs = make([]celenv.Result, len(p.validations))
		for i := range p.validations {
			if msgs[i], budget, msgErr = msgAct.Eval(p.validations[i].messageExpr, budget); msgErr != nil {
				msgs = nil
				break
			}
		}
	}

	var res result
	res.decisions = make([]decision, len(p.validations))
	for i := range p.validations {
		res.decisions[i] = p.decide(&p.validations[i], &evals[i], msgs, i, msgErr, log)
	}

	if len(p.auditAnnotations) == 0 {
		return res
	}
	annIn := noAuthz
	annIn.Namespace = fullNamespace
	annAct := p.Compiler.NewActivation(ctx, annIn)
	anns := make([]celenv.Result, len(p.auditAnnotations))
	budget = celbase.RuntimeCELCostBudget
	for i := range p.auditAnnotations {
		if anns[i], budget, err = annAct.Eval(p.auditAnnotations[i].value, budget); err != nil {
			return p.errorResult(err.Error())
		}
	}
	res.annotations = make([]annotationResult, len(p.auditAnnotations))
	for i := range p.auditAnnotations {
		res.annotations[i] = p.annotate(&p.auditAnnotations[i], &anns[i])
	}
	return res
}

// decide turns one validation's evaluation into a decision.
func (p *compiledPolicy) decide(v *validation, ev *celenv.Result, msgs []celenv.Result, i int, msgErr error, log *slog.Logger) decision {
	d := decision{elapsed: ev.Elapsed}
	switch {
	case ev.Err != nil:
		d.action, d.evaluation, d.message = p.errorAction(), evalError, ev.Err.Error()
	case errors.Is(msgErr, apiservercel.ErrInternal) || errors.Is(msgErr, apiservercel.ErrOutOfBudget):
		// A message set that ran out of budget fails every validation.
		d.action, d.evaluation, d.message = p.errorAction(), evalError, fmt.Sprintf("failed messageExpression: %s", msgErr)
	case ev.Val != types.True:
		d.action, d.evaluation = actionDeny, evalDeny
		d.reason = metav1.StatusReasonInvalid
		if v.reason != nil {
			d.reason = *v.reason
		}
		d.message = failureMessage(v, msgs, i, log)
	default:
		d.action, d.evaluation = actionAdmit, evalAdmit
	}
	return d
}

// failureMessage is the messageExpression's result when it is a usable
// string, else the message, else "failed expression: <expression>".
func failureMessage(v *validation, msgs []celenv.Result, i int, log *slog.Logger) string {
	var message string
	if i < len(msgs) {
		m := &msgs[i]
		if m.Err != nil {
			log.Debug("error while evaluating messageExpression", "err", m.Err)
		} else if m.Val != nil {
			if s, ok := m.Val.Value().(string); ok {
				message = strings.TrimSpace(s)
				switch {
				case len(message) > celbase.MaxEvaluatedMessageExpressionSizeBytes:
					log.Debug("excessively long message denied", "message", message)
					message = ""
				case strings.Contains(message, "\n"):
					log.Debug("multi-line message denied", "message", message)
					message = ""
				}
			}
		}
	}
	if message == "" && v.message != "" {
		message = strings.TrimSpace(v.message)
	}
	if message == "" {
		message = fmt.Sprintf("failed expression: %v", strings.TrimSpace(v.expr.Source))
	}
	return message
}

// annotate turns one audit annotation's evaluation into its result.
func (p *compiledPolicy) annotate(a *auditAnnotation, ev *celenv.Result) annotationResult {
	r := annotationResult{key: a.key, elapsed: ev.Elapsed}
	if ev.Err != nil {
		r.action, r.err = annotationError, ev.Err.Error()
		if p.FailurePolicy == admissionregistrationv1.Ignore {
			r.action = annotationExclude
		}
		return r
	}
	if ev.Val == nil {
		return r
	}
	switch ev.Val.Type() {
	case types.StringType:
		if v := strings.TrimSpace(ev.Val.Value().(string)); v != "" {
			r.action, r.value = annotationPublish, v
		}
	case types.NullType:
	default:
		r.action = annotationError
		r.err = fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.", a.value.Source, ev.Val.Type())
	}
	return r
}
