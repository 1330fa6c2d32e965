package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// callError is a failure to talk to a webhook (kube-apiserver's
// ErrCallingWebhook): the failure policy decides what it means.
type callError struct {
	webhook string
	reason  error
	status  *apierrors.StatusError
}

func (e *callError) Error() string {
	if e.reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.webhook)
}

func (e *callError) Unwrap() error { return e.reason }

// rejection is a webhook's deliberate denial.
type rejection struct{ status *apierrors.StatusError }

func (e *rejection) Error() string { return e.status.Error() }

// denied builds the user's error from a denial, with kube-apiserver's
// texts and a code of at least 400.
func denied(webhook string, result *metav1.Status) *apierrors.StatusError {
	by := fmt.Sprintf("admission webhook %q denied the request", webhook)
	var st metav1.Status
	if result != nil {
		st = *result
	}
	if st.Code < 400 {
		st.Code = 400
	}
	if st.Status == "" || st.Status == metav1.StatusSuccess {
		st.Status = metav1.StatusFailure
	}
	switch {
	case st.Message != "":
		st.Message = by + ": " + st.Message
	case st.Reason != "":
		st.Message = by + ": " + string(st.Reason)
	default:
		st.Message = by + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// dryRunUnsupported is kube-apiserver's refusal of a dry run.
func dryRunUnsupported(webhook string) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", webhook))
}

// checkDryRun refuses a dry-run request to a webhook with side effects.
func checkDryRun(h *hook, a *admission.Attributes) error {
	if !a.DryRun {
		return nil
	}
	if h.sideEffects == nil {
		return &callError{webhook: h.name, reason: errors.New("Webhook SideEffects is nil"), status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
	}
	if s := *h.sideEffects; s != admissionregistrationv1.SideEffectClassNone && s != admissionregistrationv1.SideEffectClassNoneOnDryRun {
		return dryRunUnsupported(h.name)
	}
	return nil
}

// call sends the review to h and returns its verified response; a denial
// is a *rejection, a failure to call a *callError. recorded tells that the
// response is h's recorded answer (Options.Answers): h was not called.
func (p *plugin) call(ctx context.Context, h *hook, a *admission.Attributes, mutating bool) (resp *admissionv1.AdmissionResponse, recorded bool, err error) {
	version, err := reviewVersion(h.versions)
	var body []byte
	uid := uuid.NewUUID()
	if err == nil {
		body, err = encodeReview(a, uid, version)
	}
	if err != nil {
		return nil, false, &callError{webhook: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), status: apierrors.NewBadRequest("error creating admission objects")}
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	data, recorded, err := p.post(ctx, h, body, uid)
	if err != nil {
		var st *apierrors.StatusError
		if !errors.As(err, &st) {
			st = apierrors.NewServiceUnavailable("error calling webhook")
		}
		return nil, recorded, &callError{webhook: h.name, reason: fmt.Errorf("failed to call webhook: %w", err), status: st}
	}
	if err := versionKind(data, version); err != nil {
		return nil, recorded, &callError{webhook: h.name, reason: fmt.Errorf("failed to call webhook: %w", err), status: apierrors.NewServiceUnavailable("error calling webhook")}
	}
	resp, err = decodeResponse(data, version, uid, mutating)
	if err != nil {
		return nil, recorded, &callError{webhook: h.name, reason: fmt.Errorf("received invalid webhook response: %w", err), status: apierrors.NewServiceUnavailable("error validating webhook response")}
	}
	if st := request.StateFrom(ctx); st != nil {
		for k, v := range resp.AuditAnnotations {
			key := h.name + "/" + k
			// kube-apiserver drops (and logs) a key that is not a
			// qualified name with exactly one "/".
			if strings.Count(key, "/") != 1 || len(validation.IsQualifiedName(key)) > 0 {
				p.log.Warn("dropping an invalid audit annotation of a webhook", "webhook", h.name, "key", key)
				continue
			}
			st.AddAnnotation(key, v)
		}
		for _, w := range resp.Warnings {
			st.AddWarning(w)
		}
	}
	if !resp.Allowed {
		return resp, recorded, &rejection{status: denied(h.name, resp.Result)}
	}
	return resp, recorded, nil
}

// outcome records the metrics of one call and tells whether the request
// fails because of err, and with which error.
func (p *plugin) outcome(ctx context.Context, h *hook, a *admission.Attributes, typ string, err error, start time.Time, failedOpenKey string) error {
	op := string(a.Operation)
	elapsed := time.Since(start)
	if err == nil {
		p.metrics.observe(h.name, typ, op, elapsed, false, 200)
		return nil
	}
	ignore := h.failurePolicy == admissionregistrationv1.Ignore
	var ce *callError
	var rj *rejection
	switch {
	case errors.As(err, &ce):
		code := int(ce.status.ErrStatus.Code)
		if !ignore && !isCanceled(ce.reason) {
			p.metrics.reject(h.name, typ, op, rejectionCallingWebhook, code)
		}
		p.metrics.observe(h.name, typ, op, elapsed, !ignore, code)
		if ignore {
			if !isCanceled(ce.reason) {
				p.log.Warn("failed calling webhook, failing open", "webhook", h.name, "err", ce)
				p.metrics.failOpen.WithLabelValues(h.name, typ).Inc()
				if st := request.StateFrom(ctx); st != nil {
					st.AddAnnotation(failedOpenKey, h.name)
				}
			}
			return nil
		}
		p.log.Warn("failed calling webhook, failing closed", "webhook", h.name, "err", ce)
		return apierrors.NewInternalError(ce)
	case errors.As(err, &rj):
		code := int(rj.status.ErrStatus.Code)
		p.metrics.reject(h.name, typ, op, rejectionNone, code)
		p.metrics.observe(h.name, typ, op, elapsed, true, code)
		return rj.status
	default:
		p.metrics.reject(h.name, typ, op, rejectionInternal, 0)
		p.metrics.observe(h.name, typ, op, elapsed, true, 0)
		return err
	}
}

// versionKind is the first step of client-go's decoding of an answer
// (its REST client's Into with the universal deserializer, before
// kube-apiserver verifies the response): a body starting with '{' is JSON,
// anything else is read as YAML; either must be an object whose apiVersion
// and kind can be read, or the call itself failed in these words.
//
// An AdmissionReview of the other version than the one sent cannot be
// converted into the one expected, which client-go reports too.
func versionKind(body []byte, sent string) error {
	data := body
	if !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		var err error
		if data, err = yaml.YAMLToJSON(body); err != nil {
			return err
		}
	}
	findKind := struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}{}
	if err := json.Unmarshal(data, &findKind); err != nil {
		return fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	if findKind.Kind == "AdmissionReview" {
		if got := strings.TrimPrefix(findKind.APIVersion, "admission.k8s.io/"); got != findKind.APIVersion && got != sent && (got == "v1" || got == "v1beta1") {
			return fmt.Errorf("converting (%s.AdmissionReview) to (%s.AdmissionReview): unknown conversion", got, sent)
		}
	}
	return nil
}
