package rest

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/registry"
)

// scaleKind is the kind of every /scale subresource.
var scaleKind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// equivalents are the resources served from one storage: the served
// versions of a custom resource, and built-in resources stored as another
// (core and events.k8s.io Events). matchPolicy Equivalent matches a
// request on one of them as any other.
type equivalents struct{ reg *registry.Registry }

var _ admission.Equivalents = equivalents{}

// For implements admission.Equivalents: the CRD's served versions in the
// order it lists them, those that have the subresource, as kube-apiserver
// registers them.
func (e equivalents) For(gvr schema.GroupVersionResource, sub string) []admission.Equivalent {
	res, ok := e.reg.Lookup(gvr)
	if ok && res.Custom == nil {
		return e.sharedStorage(res, sub)
	}
	if !ok || len(res.Custom.Versions) < 2 {
		return nil
	}
	out := make([]admission.Equivalent, 0, len(res.Custom.Versions))
	for _, v := range res.Custom.Versions {
		r, ok := e.reg.Lookup(schema.GroupVersionResource{Group: gvr.Group, Version: v, Resource: gvr.Resource})
		if !ok {
			continue
		}
		kind := r.GVK()
		switch {
		case sub == "":
		case sub == "status" && r.Status:
		case sub == "scale" && r.Scale:
			kind = scaleKind
		default:
			continue
		}
		out = append(out, admission.Equivalent{Resource: r.GVR, Kind: kind})
	}
	return out
}

// sharedStorage lists the built-in resources kept under res's keys, in
// registration order (the stored one first), when there are several.
func (e equivalents) sharedStorage(res *registry.Resource, sub string) []admission.Equivalent {
	var out []admission.Equivalent
	// Only a resource stored as another shares its keys: the others are
	// skipped before their keys are built (this runs for every request a
	// webhook or policy may match).
	shared, prefix := res.StoredAs != nil, ""
	for _, r := range e.reg.Builtin() {
		if r != res && r.StoredAs == nil && !shared {
			continue
		}
		if prefix == "" {
			prefix = res.KeyPrefix()
		}
		if r.Virtual || r.KeyPrefix() != prefix || (sub == "status" && !r.Status) || (sub != "" && sub != "status") {
			continue
		}
		out = append(out, admission.Equivalent{Resource: r.GVR, Kind: r.GVK()})
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// Convert implements admission.Equivalents with the CRD's conversion, or
// for built-in kinds through the one they are stored as.
func (e equivalents) Convert(ctx context.Context, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error) {
	if obj.GetObjectKind().GroupVersionKind() == kind {
		return obj, nil
	}
	if from, ok := e.reg.ForKind(obj.GetObjectKind().GroupVersionKind()); ok && from.Custom == nil {
		return e.convertBuiltin(obj, from, kind)
	}
	u, ok := obj.(*unstructured.Unstructured)
	res, found := e.reg.ForKind(kind)
	if !ok || !found || res.Custom == nil {
		return nil, fmt.Errorf("unable to convert %v to %v", obj.GetObjectKind().GroupVersionKind(), kind)
	}
	out := u.DeepCopy()
	if err := res.Custom.Convert(ctx, out, kind.Version); err != nil {
		return nil, err
	}
	return out, nil
}

func (e equivalents) convertBuiltin(obj runtime.Object, from *registry.Resource, kind schema.GroupVersionKind) (runtime.Object, error) {
	to, ok := e.reg.ForKind(kind)
	if !ok || to.Custom != nil || to.KeyPrefix() != from.KeyPrefix() {
		return nil, fmt.Errorf("unable to convert %v to %v", obj.GetObjectKind().GroupVersionKind(), kind)
	}
	out := obj.DeepCopyObject()
	var err error
	if from.StoredAs != nil {
		if out, err = from.StoredAs.ToStored(out); err != nil {
			return nil, err
		}
	}
	if to.StoredAs != nil {
		if out, err = to.StoredAs.FromStored(out); err != nil {
			return nil, err
		}
	}
	out.GetObjectKind().SetGroupVersionKind(kind)
	return out, nil
}
