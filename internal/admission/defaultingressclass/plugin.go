package defaultingressclass

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "DefaultIngressClass"

// IngressClasses lists every IngressClass.
type IngressClasses func(ctx context.Context) ([]*networkingv1.IngressClass, error)

// Plugin is DefaultIngressClass.
type Plugin struct {
	list IngressClasses
}

// New returns the plugin reading classes through list.
func New(list IngressClasses) *Plugin { return &Plugin{list: list} }

var ingresses = schema.GroupResource{Group: networkingv1.GroupName, Resource: "ingresses"}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.GroupResource() != ingresses {
		return nil
	}
	ing, ok := a.Object.(*networkingv1.Ingress)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Ingress resource, got: %v", a.Kind))
	}
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	if _, ok := ing.Annotations[networkingv1beta1.AnnotationIngressClass]; ok {
		return nil
	}
	classes, err := p.list(ctx)
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if def := Default(classes); def != nil {
		name := def.Name
		ing.Spec.IngressClassName = &name
	}
	return nil
}

// Default is the default class among classes: the newest of those marked
// default, by name on a tie, or nil when none is marked.
func Default(classes []*networkingv1.IngressClass) *networkingv1.IngressClass {
	return admission.NewestDefault(classes, func(c *networkingv1.IngressClass) bool {
		return c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true"
	})
}
