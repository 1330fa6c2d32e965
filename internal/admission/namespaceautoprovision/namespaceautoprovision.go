package namespaceautoprovision

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "NamespaceAutoProvision"

// Namespaces reads a namespace; a missing one is an apierrors NotFound.
type Namespaces func(ctx context.Context, name string) (*corev1.Namespace, error)

// CreateNamespace creates ns through the API's write path (defaults,
// admission, validation, storage), as kube-apiserver's plugin does with
// its loopback client; an existing one is an apierrors AlreadyExists.
type CreateNamespace func(ctx context.Context, ns *corev1.Namespace) error

// Plugin is NamespaceAutoProvision.
type Plugin struct {
	get    Namespaces
	create CreateNamespace
}

var _ admission.Mutator = (*Plugin)(nil)

// New returns the plugin reading namespaces through get and creating the
// missing ones through create.
func New(get Namespaces, create CreateNamespace) *Plugin {
	return &Plugin{get: get, create: create}
}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.DryRun {
		return nil
	}
	if a.Namespace == "" || (a.Kind.Group == "" && a.Kind.Kind == "Namespace") {
		return nil
	}
	_, err := p.get(ctx, a.Namespace)
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return admission.NewForbidden(a, err)
	}
	err = p.create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.Namespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return admission.NewForbidden(a, err)
	}
	return nil
}
