package crd

import (
	"context"
	"fmt"
	"maps"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/crd/conversion"
	crdschema "github.com/portcullis/portcullis/internal/crd/schema"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// converter converts custom resources between the versions of one group
// by the CRD's conversion strategy, as kube-apiserver's CR converter
// does.
type converter struct {
	group    string
	strategy apiextensionsv1.ConversionStrategyType
	// versions are the CRD's versions; converting from or to another fails.
	versions map[string]bool
	// webhook calls the CRD's conversion webhook (strategy Webhook);
	// webhookErr says why there is none.
	webhook    *conversion.Webhook
	webhookErr error
	// schemas coerce what a webhook returns, by version, as
	// kube-apiserver's storage codec does (pruning unknown fields).
	schemas map[string]*crdschema.Version
}

// newConverter makes crd's converter; served are its served versions,
// compiled.
func newConverter(crd *apiextensionsv1.CustomResourceDefinition, storage string, served map[string]*crdschema.Version, services webhookclient.ServiceResolver) *converter {
	c := &converter{group: crd.Spec.Group, strategy: apiextensionsv1.NoneConverter, versions: map[string]bool{}, schemas: served}
	for _, v := range crd.Spec.Versions {
		c.versions[v.Name] = true
	}
	if crd.Spec.Conversion != nil {
		c.strategy = crd.Spec.Conversion.Strategy
	}
	if c.strategy == apiextensionsv1.WebhookConverter {
		// One client per CRD: it goes with the converter when the CRD
		// changes, its idle connections with it.
		c.webhook, c.webhookErr = conversion.New(crd, conversion.Options{Client: webhookclient.New(services)})
		if served[storage] == nil {
			// Writes are converted to the storage version and coerced by
			// its schema, served or not.
			c.schemas = maps.Clone(served)
			if s, _ := crdschema.Compile(crd, storage); s != nil {
				c.schemas[storage] = s
			}
		}
	}
	return c
}

// convert converts obj in place to version, for the storage codec.
func (c *converter) convert(ctx context.Context, obj *unstructured.Unstructured, version string) error {
	if errs := c.convertList(ctx, []*unstructured.Unstructured{obj}, version); errs != nil {
		return errs[0]
	}
	return nil
}

// convertList converts objs in place to version, for the storage codec:
// in one call of the webhook for all that need it, each result coerced
// by version's schema. It returns nil when all are converted, otherwise
// one error per object (nil for the converted ones).
func (c *converter) convertList(ctx context.Context, objs []*unstructured.Unstructured, version string) []error {
	return c.convertObjects(ctx, objs, version, true)
}

func (c *converter) convertObjects(ctx context.Context, objs []*unstructured.Unstructured, version string, coerce bool) []error {
	to := schema.GroupVersion{Group: c.group, Version: version}
	var errs []error
	fail := func(i int, err error) {
		if errs == nil {
			errs = make([]error, len(objs))
		}
		errs[i] = err
	}
	var send []*unstructured.Unstructured
	var sendIdx []int
	for i, obj := range objs {
		switch {
		case obj.GetAPIVersion() == to.String():
		case !c.versions[version]:
			fail(i, fmt.Errorf("request to convert CR to an invalid group/version: %s", to))
		case !c.valid(obj):
			fail(i, fmt.Errorf("request to convert CR from an invalid group/version: %s", obj.GroupVersionKind().GroupVersion()))
		case c.strategy == apiextensionsv1.NoneConverter, onlyTypeMeta(obj):
			// The versions share one shape (or there is nothing to
			// convert): only apiVersion changes.
			obj.SetAPIVersion(to.String())
		case c.strategy != apiextensionsv1.WebhookConverter:
			fail(i, fmt.Errorf("unknown conversion strategy %q", c.strategy))
		case c.webhook == nil:
			fail(i, c.webhookErr)
		default:
			send = append(send, obj)
			sendIdx = append(sendIdx, i)
		}
	}
	if len(send) == 0 {
		return errs
	}
	werrs := c.webhook.Convert(ctx, send, to)
	for j, i := range sendIdx {
		if werrs != nil && werrs[j] != nil {
			fail(i, werrs[j])
			continue
		}
		if s := c.schemas[version]; coerce && s != nil {
			if _, err := s.Coerce(objs[i]); err != nil {
				fail(i, err)
			}
		}
	}
	return errs
}

// valid reports an object of one of the CRD's versions.
func (c *converter) valid(obj *unstructured.Unstructured) bool {
	gv := obj.GroupVersionKind().GroupVersion()
	return gv.Group == c.group && c.versions[gv.Version]
}

// onlyTypeMeta reports an object with nothing but apiVersion and kind,
// which kube-apiserver converts without calling a webhook.
func onlyTypeMeta(u *unstructured.Unstructured) bool {
	if len(u.Object) != 2 {
		return false
	}
	_, kind := u.Object["kind"]
	_, apiVersion := u.Object["apiVersion"]
	return kind && apiVersion
}

// Convert implements runtime.ObjectConvertor for the field managers.
func (c *converter) Convert(in, out, _ any) error {
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
	return c.convertOne(context.Background(), o, target)
}

// ConvertToVersion implements runtime.ObjectConvertor.
func (c *converter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("crd: cannot convert %T", in)
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("crd: %v is not convertible to %v", u.GroupVersionKind(), target)
	}
	out := u.DeepCopy()
	if err := c.convertOne(context.Background(), out, gvk.Version); err != nil {
		return nil, err
	}
	return out, nil
}

// convertOne converts without coercing, as kube-apiserver's field
// managers' converter does.
func (c *converter) convertOne(ctx context.Context, obj *unstructured.Unstructured, version string) error {
	if errs := c.convertObjects(ctx, []*unstructured.Unstructured{obj}, version, false); errs != nil {
		return errs[0]
	}
	return nil
}

// ConvertFieldLabel implements runtime.ObjectConvertor; field selectors
// are checked by the REST layer.
func (c *converter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
