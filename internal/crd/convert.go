package crd

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// converter converts custom resources between the versions of one group
// by the CRD's conversion strategy.
type converter struct {
	group    string
	strategy apiextensionsv1.ConversionStrategyType
}

// errWebhookConversion is returned for CRDs whose versions differ in
// shape and need their conversion webhook.
var errWebhookConversion = fmt.Errorf("conversion webhooks are not supported yet")

// convert converts obj in place to version.
func (c converter) convert(_ context.Context, obj *unstructured.Unstructured, version string) error {
	gv := schema.GroupVersion{Group: c.group, Version: version}
	if obj.GetAPIVersion() == gv.String() {
		return nil
	}
	if c.strategy != apiextensionsv1.NoneConverter {
		return errWebhookConversion
	}
	// None: the versions share one shape; only apiVersion changes.
	obj.SetAPIVersion(gv.String())
	return nil
}

// Convert implements runtime.ObjectConvertor for the field managers.
func (c converter) Convert(in, out, _ any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("crd: cannot convert %T to %T", in, out)
	}
	target := o.GroupVersionKind().Version
	u.DeepCopyInto(o)
	if target == "" {
		return nil
	}
	return c.convert(context.Background(), o, target)
}

// ConvertToVersion implements runtime.ObjectConvertor.
func (c converter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("crd: cannot convert %T", in)
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("crd: %v is not convertible to %v", u.GroupVersionKind(), target)
	}
	out := u.DeepCopy()
	if err := c.convert(context.Background(), out, gvk.Version); err != nil {
		return nil, err
	}
	return out, nil
}

// ConvertFieldLabel implements runtime.ObjectConvertor; field selectors
// are checked by the REST layer.
func (c converter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
