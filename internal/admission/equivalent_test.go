package admission_test

import (
	"context"
	"errors"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
)

func TestAs(t *testing.T) {
	ctx := context.Background()
	w := &policytest.Widgets{}
	obj := policytest.Widget("v2", "default", "w", map[string]any{"size": int64(1)})
	old := policytest.Widget("v2", "default", "w", map[string]any{"size": int64(0)})
	a := policytest.WidgetRequest(admission.Update, w, obj, old)

	t.Run("own", func(t *testing.T) {
		got, err := a.As(ctx, a.Resource, a.Kind)
		if err != nil || got != a {
			t.Fatalf("As(own) = %p, %v; want the attributes themselves", got, err)
		}
	})
	t.Run("another version", func(t *testing.T) {
		v, err := a.As(ctx, policytest.WidgetsGVR("v1"), policytest.WidgetGVK("v1"))
		if err != nil {
			t.Fatal(err)
		}
		if v.Kind != policytest.WidgetGVK("v1") || v.Resource != policytest.WidgetsGVR("v1") {
			t.Errorf("kind %v resource %v, want v1", v.Kind, v.Resource)
		}
		if v.RequestKind != policytest.WidgetGVK("v2") || v.RequestResource != policytest.WidgetsGVR("v2") {
			t.Errorf("request kind %v resource %v, want the client's v2", v.RequestKind, v.RequestResource)
		}
		for name, o := range map[string]any{"object": v.Object, "oldObject": v.OldObject} {
			if got := o.(*unstructured.Unstructured).GetAPIVersion(); got != "example.com/v1" {
				t.Errorf("%s apiVersion %s, want example.com/v1", name, got)
			}
		}
		if obj.GetAPIVersion() != "example.com/v2" || a.Kind != policytest.WidgetGVK("v2") {
			t.Error("As changed the request it was given")
		}
		v.Object.(*unstructured.Unstructured).Object["spec"] = map[string]any{"size": int64(2)}
		back, err := a.ConvertBack(ctx, v, v.Object)
		if err != nil {
			t.Fatal(err)
		}
		if u := back.(*unstructured.Unstructured); u.GetAPIVersion() != "example.com/v2" || u.Object["spec"].(map[string]any)["size"] != int64(2) {
			t.Errorf("converted back: %v", u.Object)
		}
	})
	t.Run("delete has no object", func(t *testing.T) {
		d := policytest.WidgetRequest(admission.Delete, w, nil, old)
		v, err := d.As(ctx, policytest.WidgetsGVR("v1"), policytest.WidgetGVK("v1"))
		if err != nil || v.Object != nil || v.OldObject.(*unstructured.Unstructured).GetAPIVersion() != "example.com/v1" {
			t.Fatalf("As = %+v, %v", v, err)
		}
	})
	t.Run("scale keeps its kind", func(t *testing.T) {
		scaleKind := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
		s := &admission.Attributes{Kind: scaleKind, Resource: policytest.WidgetsGVR("v2"), Subresource: "scale",
			Object: &autoscalingv1.Scale{}, Equivalents: w}
		before := w.Converted
		v, err := s.As(ctx, policytest.WidgetsGVR("v1"), scaleKind)
		if err != nil || v.Resource.Version != "v1" || v.Object != s.Object || w.Converted != before {
			t.Fatalf("As = %+v, %v; want the same Scale under v1 without conversion", v, err)
		}
		if v.RequestResource != policytest.WidgetsGVR("v2") || v.RequestSubResource != "scale" {
			t.Errorf("request resource %v/%s, want the client's", v.RequestResource, v.RequestSubResource)
		}
	})
	t.Run("no equivalents", func(t *testing.T) {
		b := *a
		b.Equivalents = nil
		if _, err := b.As(ctx, policytest.WidgetsGVR("v1"), policytest.WidgetGVK("v1")); !errors.Is(err, admission.ErrNoEquivalents) {
			t.Fatalf("err = %v, want ErrNoEquivalents", err)
		}
	})
}
