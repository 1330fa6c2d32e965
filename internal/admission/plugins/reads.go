package plugins

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/objects"
)

// The built-in plugins read the store directly rather than through
// informers: a plugin then sees every write acknowledged before its
// request, as a client that just created a StorageClass or a LimitRange
// expects. The lists they read are small (classes) or per namespace.

// getter returns a typed read of one object of gvr (missing: NotFound).
func getter[T runtime.Object](objs *objects.Objects, gvr schema.GroupVersionResource) func(ctx context.Context, name string) (T, error) {
	return func(ctx context.Context, name string) (T, error) {
		return getIn[T](ctx, objs, gvr, "", name)
	}
}

// namespacedGetter is getter for a namespaced resource.
func namespacedGetter[T runtime.Object](objs *objects.Objects, gvr schema.GroupVersionResource) func(ctx context.Context, ns, name string) (T, error) {
	return func(ctx context.Context, ns, name string) (T, error) {
		return getIn[T](ctx, objs, gvr, ns, name)
	}
}

func getIn[T runtime.Object](ctx context.Context, objs *objects.Objects, gvr schema.GroupVersionResource, ns, name string) (T, error) {
	var zero T
	obj, err := objs.Get(ctx, gvr, ns, name)
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("%s %s/%s: stored as %T", gvr.Resource, ns, name, obj)
	}
	return t, nil
}

// lister returns a typed list of every object of a cluster-scoped gvr.
func lister[T runtime.Object](objs *objects.Objects, gvr schema.GroupVersionResource) func(ctx context.Context) ([]T, error) {
	list := namespacedLister[T](objs, gvr)
	return func(ctx context.Context) ([]T, error) { return list(ctx, "") }
}

// namespacedLister returns a typed list of the objects of gvr in a namespace.
func namespacedLister[T runtime.Object](objs *objects.Objects, gvr schema.GroupVersionResource) func(ctx context.Context, ns string) ([]T, error) {
	return func(ctx context.Context, ns string) ([]T, error) {
		items, err := objs.List(ctx, gvr, ns, nil)
		if err != nil {
			return nil, err
		}
		out := make([]T, 0, len(items))
		for _, obj := range items {
			t, ok := obj.(T)
			if !ok {
				return nil, fmt.Errorf("%s in %q: stored as %T", gvr.Resource, ns, obj)
			}
			out = append(out, t)
		}
		return out, nil
	}
}
