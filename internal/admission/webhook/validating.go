package webhook

import (
	"context"
	"fmt"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// ValidatingFailedOpenPrefix starts the audit annotation kube-apiserver
// records when a validating webhook failed open.
const ValidatingFailedOpenPrefix = "failed-open.validating.webhook.admission.k8s.io/"

// Validating is the ValidatingAdmissionWebhook plugin.
type Validating struct{ p *plugin }

var _ admission.Validator = (*Validating)(nil)

// NewValidating returns the plugin without configurations.
func NewValidating(opts Options) (*Validating, error) {
	p, err := newPlugin(opts)
	if err != nil {
		return nil, err
	}
	return &Validating{p: p}, nil
}

// Upsert adds or replaces a configuration.
func (v *Validating) Upsert(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) {
	v.p.reg.set(cfg.Name, fromValidating(cfg))
}

// Delete removes a configuration.
func (v *Validating) Delete(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) {
	v.p.reg.set(cfg.Name, nil)
}

// Validate calls every matching webhook in parallel; the first failure in
// webhook order fails the request.
func (v *Validating) Validate(ctx context.Context, a *admission.Attributes) error {
	hooks, err := v.p.candidates(ctx, a, "validating")
	if err != nil {
		return err
	}
	return validate(ctx, a, hooks)
}

// ValidatingStaticFirst dispatches the static webhooks (static returns
// the set in force) and the API ones as kube-apiserver's one dispatcher
// over both does: all called in parallel, static ones first in order, so
// a static failure is the one reported while every API webhook is still
// called.
func ValidatingStaticFirst(static func() *Validating, api *Validating) admission.Validator {
	return admission.ValidatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		hooks, err := static().p.candidates(ctx, a, "validating")
		if err != nil {
			return err
		}
		more, err := api.p.candidates(ctx, a, "validating")
		if err != nil {
			return err
		}
		return validate(ctx, a, append(hooks, more...))
	})
}

func validate(ctx context.Context, a *admission.Attributes, hooks []invocation) error {
	if len(hooks) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
	}
	errs := make([]error, len(hooks))
	// parts are the decision trace's, kept by position and recorded in
	// webhook order once all have answered, whichever answered first.
	var parts []request.Step
	trace := request.StateFrom(ctx)
	if trace.Tracing() {
		parts = make([]request.Step, len(hooks))
	}
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			defer func() {
				// A webhook must never take the server down with it.
				if r := recover(); r != nil {
					c := called{callErr: fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.name, r)}
					if h.failurePolicy != admissionregistrationv1.Ignore {
						errs[i] = apierrors.NewInternalError(c.callErr)
						c.err = errs[i]
					}
					if parts != nil {
						parts[i] = c.part(h.hook, request.PhaseValidate, start)
					}
				}
			}()
			err := checkDryRun(h.hook, a)
			recorded := false
			if err == nil {
				_, recorded, err = h.p.call(ctx, h.hook, h.attrs, false)
			}
			errs[i] = h.p.outcome(ctx, h.hook, a, "validating", err, start, fmt.Sprintf("%sround_0_index_%d", ValidatingFailedOpenPrefix, i))
			if parts != nil {
				parts[i] = called{callErr: err, err: errs[i], recorded: recorded}.part(h.hook, request.PhaseValidate, start)
			}
		}()
	}
	wg.Wait()
	for _, p := range parts {
		trace.AddPart(p)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
