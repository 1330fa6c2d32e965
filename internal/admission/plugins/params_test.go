package plugins

import (
	"context"
	"errors"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/crd"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
)

func serveWidgets(t *testing.T, objs *objects.Objects) {
	t.Helper()
	def := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(widgetsCRD), def); err != nil {
		t.Fatal(err)
	}
	resources, err := crd.Resources(def)
	if err != nil {
		t.Fatal(err)
	}
	if err := objs.Registry().SetCustom(resources); err != nil {
		t.Fatal(err)
	}
}

// TestParamKindOfACRD: a param kind a CRD serves resolves once the CRD is
// served, and stays resolved after the CRD is gone, with no params, as
// kube-apiserver's param informers behave.
func TestParamKindOfACRD(t *testing.T) {
	ctx := context.Background()
	objs := objectstest.New(t)
	src := newParamSource(objs)
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	if _, err := src.Namespaced(widget); !errors.Is(err, params.ErrUnknownKind) {
		t.Fatalf("before the CRD: %v, want ErrUnknownKind", err)
	}
	serveWidgets(t, objs)
	if namespaced, err := src.Namespaced(widget); err != nil || !namespaced {
		t.Fatalf("served: namespaced %v, %v", namespaced, err)
	}
	if _, err := src.Get(ctx, widget, "default", "limits"); !apierrors.IsNotFound(err) {
		t.Fatalf("missing param: %v, want NotFound", err)
	}
	if err := objs.Registry().SetCustom(nil); err != nil {
		t.Fatal(err)
	}
	if namespaced, err := src.Namespaced(widget); err != nil || !namespaced {
		t.Fatalf("after the CRD: namespaced %v, %v; want it resolved as before", namespaced, err)
	}
	if _, err := src.Get(ctx, widget, "default", "limits"); !apierrors.IsNotFound(err) {
		t.Fatalf("after the CRD: Get %v, want NotFound", err)
	}
	if got, err := src.List(ctx, widget, "default", labels.Everything()); err != nil || len(got) != 0 {
		t.Fatalf("after the CRD: List %v, %v; want none", got, err)
	}
	other := schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}
	if _, err := src.Namespaced(other); !errors.Is(err, params.ErrUnknownKind) {
		t.Fatalf("a version never served: %v, want ErrUnknownKind", err)
	}
}
