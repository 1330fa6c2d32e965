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

// equivalents are the served versions of a custom resource, which share
// one storage: matchPolicy Equivalent matches a request on one of them as
// any other. Built-in resources are served in one version each, so they
// have none.
type equivalents struct{ reg *registry.Registry }

var _ admission.Equivalents = equivalents{}

// For implements admission.Equivalents: the CRD's served versions in the
// order it lists them, those that have the subresource, as kube-apiserver
// registers them.
func (e equivalents) For(gvr schema.GroupVersionResource, sub string) []admission.Equivalent {
	res, ok := e.reg.Lookup(gvr)
	if !ok || res.Custom == nil || len(res.Custom.Versions) < 2 {
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

// Convert implements admission.Equivalents with the CRD's conversion.
func (e equivalents) Convert(ctx context.Context, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error) {
	if obj.GetObjectKind().GroupVersionKind() == kind {
		return obj, nil
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
