package admission

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Equivalent is one resource a request may be matched as under
// matchPolicy Equivalent, with the kind its objects have there.
type Equivalent struct {
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

// Equivalents knows the resources served from one storage under several
// versions (the served versions of a CustomResourceDefinition), as
// kube-apiserver's equivalent resource mapper does, and converts objects
// between them.
type Equivalents interface {
	// For lists the resources equivalent to resource with subresource
	// sub, in kube-apiserver's order (the CRD's versions as it lists
	// them), resource itself among them; none when it has no others.
	For(resource schema.GroupVersionResource, sub string) []Equivalent
	// Convert returns obj converted to kind's version; obj is not
	// modified.
	Convert(ctx context.Context, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error)
}

// ErrNoEquivalents is returned by As for a kind other than the request's
// when the request carries no Equivalents to convert with.
var ErrNoEquivalents = errors.New("admission: no equivalent resources to convert with")

// As returns the request as matched as resource and kind: a itself when
// they are its own, otherwise a copy with that Kind and Resource whose
// Object and OldObject are converted to kind's version, as kube-apiserver
// hands a request matched through an equivalent resource to a webhook or
// policy. RequestKind, RequestResource and RequestSubResource stay what
// the client asked for. A plugin that changes the copy's Object converts
// it back to a.Kind with a.Equivalents.
func (a *Attributes) As(ctx context.Context, resource schema.GroupVersionResource, kind schema.GroupVersionKind) (*Attributes, error) {
	if resource == a.Resource && kind == a.Kind {
		return a, nil
	}
	v := *a
	if v.RequestKind.Empty() && v.RequestResource.Empty() {
		v.RequestKind, v.RequestResource, v.RequestSubResource = a.Kind, a.Resource, a.Subresource
	}
	v.Resource, v.Kind = resource, kind
	if kind == a.Kind {
		// The scale of every version is autoscaling/v1 Scale.
		return &v, nil
	}
	if a.Equivalents == nil {
		return nil, ErrNoEquivalents
	}
	var err error
	if v.Object, err = convertObject(ctx, a.Equivalents, a.Object, kind); err != nil {
		return nil, err
	}
	if v.OldObject, err = convertObject(ctx, a.Equivalents, a.OldObject, kind); err != nil {
		return nil, err
	}
	return &v, nil
}

// ConvertBack returns obj, an object of the request as matched as v (by
// As), converted to the request's own kind.
func (a *Attributes) ConvertBack(ctx context.Context, v *Attributes, obj runtime.Object) (runtime.Object, error) {
	if v == a || v.Kind == a.Kind {
		return obj, nil
	}
	if a.Equivalents == nil {
		return nil, ErrNoEquivalents
	}
	return convertObject(ctx, a.Equivalents, obj, a.Kind)
}

func convertObject(ctx context.Context, e Equivalents, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error) {
	if obj == nil || reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil() {
		return obj, nil
	}
	out, err := e.Convert(ctx, obj, kind)
	if err != nil {
		return nil, fmt.Errorf("converting to %v: %w", kind, err)
	}
	return out, nil
}
