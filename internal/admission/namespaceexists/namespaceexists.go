package namespaceexists

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "NamespaceExists"

// Namespaces reads a namespace; a missing one is an apierrors NotFound.
type Namespaces func(ctx context.Context, name string) (*corev1.Namespace, error)

// Plugin is NamespaceExists.
type Plugin struct {
	get Namespaces
}

var _ admission.Validator = (*Plugin)(nil)

// New returns the plugin reading namespaces through get.
func New(get Namespaces) *Plugin { return &Plugin{get: get} }

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	switch a.Operation {
	case admission.Create, admission.Update, admission.Delete:
	default:
		return nil
	}
	if a.Namespace == "" || (a.Kind.Group == "" && a.Kind.Kind == "Namespace") {
		return nil
	}
	_, err := p.get(ctx, a.Namespace)
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return err
	}
	return apierrors.NewInternalError(err)
}
