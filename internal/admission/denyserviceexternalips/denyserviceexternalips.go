package denyserviceexternalips

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "DenyServiceExternalIPs"

// ErrDenied is the reason of the plugin's refusals.
var ErrDenied = errors.New("Use of external IPs is denied by admission control") //nolint:staticcheck // kube-apiserver's text

// Plugin is DenyServiceExternalIPs.
type Plugin struct{}

var _ admission.Validator = Plugin{}

// New returns the plugin.
func New() Plugin { return Plugin{} }

// Validate implements admission.Validator.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Resource.Group != "" || a.Resource.Resource != "services" || a.Subresource != "" {
		return nil
	}
	svc, ok := a.Object.(*corev1.Service)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.Kind)) //nolint:staticcheck // kube-apiserver's text
	}
	var old *corev1.Service
	if a.OldObject != nil {
		if old, ok = a.OldObject.(*corev1.Service); !ok {
			return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.Kind)) //nolint:staticcheck // kube-apiserver's text
		}
	}
	if onlyKnownIPs(svc, old) {
		return nil
	}
	return admission.NewForbidden(a, ErrDenied)
}

// onlyKnownIPs says whether every external IP of svc is one old already
// had (old is nil on create).
func onlyKnownIPs(svc, old *corev1.Service) bool {
	if len(svc.Spec.ExternalIPs) == 0 {
		return true
	}
	if old == nil {
		return false
	}
	had := map[string]bool{}
	for _, ip := range old.Spec.ExternalIPs {
		had[ip] = true
	}
	for _, ip := range svc.Spec.ExternalIPs {
		if !had[ip] {
			return false
		}
	}
	return true
}
