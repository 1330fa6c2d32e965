package plugins

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/objects"
)

// paramSource reads admission policy params from the store. A param kind
// is resolved when a request needs it, so the kind of a CRD created after
// the policy works as soon as the CRD is served. Once resolved it stays
// resolved: kube-apiserver keeps watching a param kind it found, so after
// its CRD is deleted a binding finds no params (and parameterNotFoundAction
// decides) rather than the policy failing to resolve its paramKind.
type paramSource struct {
	objs *objects.Objects

	mu   sync.Mutex
	seen map[schema.GroupVersionKind]paramResource
}

// paramResource is where a param kind was last served.
type paramResource struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

var _ params.Source = (*paramSource)(nil)

func newParamSource(objs *objects.Objects) *paramSource {
	return &paramSource{objs: objs, seen: map[schema.GroupVersionKind]paramResource{}}
}

// resource resolves kind; served is false for a kind served once but not
// now.
func (p *paramSource) resource(kind schema.GroupVersionKind) (r paramResource, served bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if res, ok := p.objs.ForKind(kind); ok {
		r = paramResource{gvr: res.GVR, namespaced: res.Namespaced}
		p.seen[kind] = r
		return r, true, nil
	}
	if r, ok := p.seen[kind]; ok {
		return r, false, nil
	}
	return paramResource{}, false, fmt.Errorf("%w: %s", params.ErrUnknownKind, kind)
}

// Namespaced implements params.Source.
func (p *paramSource) Namespaced(kind schema.GroupVersionKind) (bool, error) {
	r, _, err := p.resource(kind)
	return r.namespaced, err
}

// Get implements params.Source.
func (p *paramSource) Get(ctx context.Context, kind schema.GroupVersionKind, ns, name string) (runtime.Object, error) {
	r, _, err := p.resource(kind)
	if err != nil {
		return nil, err
	}
	// A resource no longer served answers NotFound.
	return p.objs.Get(ctx, r.gvr, ns, name)
}

// List implements params.Source.
func (p *paramSource) List(ctx context.Context, kind schema.GroupVersionKind, ns string, selector labels.Selector) ([]runtime.Object, error) {
	r, served, err := p.resource(kind)
	if err != nil || !served {
		return nil, err
	}
	return p.objs.List(ctx, r.gvr, ns, selector)
}
