package lifecycle

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "NamespaceLifecycle"

// Namespaces reads a namespace; a missing one is an apierrors NotFound.
type Namespaces func(ctx context.Context, name string) (*corev1.Namespace, error)

// Plugin is NamespaceLifecycle.
type Plugin struct {
	get      Namespaces
	immortal map[string]bool
}

// New returns the plugin reading namespaces through get.
func New(get Namespaces) *Plugin {
	return &Plugin{get: get, immortal: map[string]bool{
		metav1.NamespaceDefault: true, metav1.NamespaceSystem: true, metav1.NamespacePublic: true}}
}

var namespacesGR = schema.GroupResource{Resource: "namespaces"}

// Admit implements admission.Mutator. It runs first among the mutating
// plugins, so nothing mutates an object that cannot be created anyway.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	if isNamespace {
		if a.Operation == admission.Delete && a.Subresource == "" && p.immortal[a.Name] {
			return apierrors.NewForbidden(namespacesGR, a.Name, fmt.Errorf("this namespace may not be deleted"))
		}
		return nil
	}
	if a.Namespace == "" || a.Operation != admission.Create {
		return nil
	}
	ns, err := p.get(ctx, a.Namespace)
	if err != nil {
		return err
	}
	if ns.Status.Phase == corev1.NamespaceTerminating {
		e := apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
		e.ErrStatus.Details.Causes = append(e.ErrStatus.Details.Causes, metav1.StatusCause{
			Type: corev1.NamespaceTerminatingCause, Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace), Field: "metadata.namespace"})
		return e
	}
	return nil
}
