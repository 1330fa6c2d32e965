package policytest

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// WidgetVersions are the versions Widgets serves, in the order its CRD
// lists them.
var WidgetVersions = []string{"v1", "v2"}

// WidgetsGVR and WidgetGVK name the custom resource Widget of
// example.com in version.
func WidgetsGVR(version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "example.com", Version: version, Resource: "widgets"}
}

func WidgetGVK(version string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "example.com", Version: version, Kind: "Widget"}
}

// Widgets are the equivalent resources of a CRD serving widgets in
// WidgetVersions with conversion None (only apiVersion changes) and a
// scale subresource. Converted counts the conversions.
type Widgets struct{ Converted int }

var _ admission.Equivalents = (*Widgets)(nil)

// For implements admission.Equivalents.
func (w *Widgets) For(gvr schema.GroupVersionResource, sub string) []admission.Equivalent {
	if gvr.GroupResource() != WidgetsGVR("").GroupResource() {
		return nil
	}
	var out []admission.Equivalent
	for _, v := range WidgetVersions {
		kind := WidgetGVK(v)
		if sub == "scale" {
			kind = autoscalingv1.SchemeGroupVersion.WithKind("Scale")
		}
		out = append(out, admission.Equivalent{Resource: WidgetsGVR(v), Kind: kind})
	}
	return out
}

// Convert implements admission.Equivalents.
func (w *Widgets) Convert(_ context.Context, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GroupVersionKind().GroupKind() != kind.GroupKind() {
		return nil, fmt.Errorf("cannot convert %T to %v", obj, kind)
	}
	w.Converted++
	out := u.DeepCopy()
	out.SetAPIVersion(kind.GroupVersion().String())
	return out, nil
}

// Widget returns a Widget in version with spec.
func Widget(version, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(WidgetGVK(version))
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// WidgetRequest returns the attributes of a write of Widgets in the
// version of obj (or old) by Alice, with eq as its equivalents.
func WidgetRequest(op admission.Operation, eq admission.Equivalents, obj, old *unstructured.Unstructured) *admission.Attributes {
	src := obj
	if src == nil {
		src = old
	}
	gvk := src.GroupVersionKind()
	gvr := WidgetsGVR(gvk.Version)
	a := &admission.Attributes{
		Kind: gvk, Resource: gvr, RequestKind: gvk, RequestResource: gvr,
		Operation: op, UserInfo: Alice, Name: src.GetName(), Namespace: src.GetNamespace(),
		Equivalents: eq,
	}
	if obj != nil {
		a.Object = obj
	}
	if old != nil {
		a.OldObject = old
	}
	return a
}
