package plugins

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/objects"
)

// paramSource reads admission policy params from the store.
type paramSource struct{ objs *objects.Objects }

var _ params.Source = paramSource{}

func (p paramSource) resource(kind schema.GroupVersionKind) (schema.GroupVersionResource, bool, error) {
	res, ok := p.objs.ForKind(kind)
	if !ok {
		return schema.GroupVersionResource{}, false, fmt.Errorf("%w: %s", params.ErrUnknownKind, kind)
	}
	return res.GVR, res.Namespaced, nil
}

// Namespaced implements params.Source.
func (p paramSource) Namespaced(kind schema.GroupVersionKind) (bool, error) {
	_, namespaced, err := p.resource(kind)
	return namespaced, err
}

// Get implements params.Source.
func (p paramSource) Get(ctx context.Context, kind schema.GroupVersionKind, ns, name string) (runtime.Object, error) {
	gvr, _, err := p.resource(kind)
	if err != nil {
		return nil, err
	}
	return p.objs.Get(ctx, gvr, ns, name)
}

// List implements params.Source.
func (p paramSource) List(ctx context.Context, kind schema.GroupVersionKind, ns string, selector labels.Selector) ([]runtime.Object, error) {
	gvr, _, err := p.resource(kind)
	if err != nil {
		return nil, err
	}
	return p.objs.List(ctx, gvr, ns, selector)
}
