package crd

import (
	"errors"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/portcullis/portcullis/internal/crd/definition"
	crdschema "github.com/portcullis/portcullis/internal/crd/schema"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// Resources returns the registry resources of an established CRD, one per
// served version in the order kube-apiserver ranks versions; none when it
// is not established. A conversion webhook named by a Service fails, as
// no Service resolver is given; the catalog passes its own.
func Resources(crd *apiextensionsv1.CustomResourceDefinition) ([]*registry.Resource, error) {
	return resources(crd, nil)
}

// resources is Resources with the resolver of conversion webhooks'
// Services.
func resources(crd *apiextensionsv1.CustomResourceDefinition, services webhookclient.ServiceResolver) ([]*registry.Resource, error) {
	if !definition.IsEstablished(crd) {
		return nil, nil
	}
	storage := ""
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage = v.Name
		}
		if v.Served {
			served = append(served, v.Name)
		}
	}
	if storage == "" {
		return nil, fmt.Errorf("crd %s has no storage version", crd.Name)
	}
	listed := slices.Clone(served)
	sortVersions(served)
	names := crd.Status.AcceptedNames
	versions := map[string]*crdschema.Version{}
	var ordered []*crdschema.Version
	var compileErrs []error
	for _, name := range served {
		compiled, err := crdschema.Compile(crd, name)
		if errors.Is(err, crdschema.ErrRuleCompile) && compiled != nil {
			// kube-apiserver serves such a version; each write of it then
			// fails with the rule's compile error.
			compileErrs = append(compileErrs, err)
		} else if err != nil {
			return nil, fmt.Errorf("crd %s version %s: %w", crd.Name, name, err)
		}
		versions[name] = compiled
		ordered = append(ordered, compiled)
	}
	conv := newConverter(crd, storage, versions, services)
	typeConverter, err := crdschema.NewTypeConverter(ordered...)
	if err != nil {
		return nil, fmt.Errorf("crd %s: %w", crd.Name, err)
	}
	var out []*registry.Resource
	for _, name := range served {
		v := crdVersion(crd, name)
		compiled := versions[name]
		gv := schema.GroupVersion{Group: crd.Spec.Group, Version: name}
		gvk, listGVK := gv.WithKind(names.Kind), gv.WithKind(names.ListKind)
		res := &registry.Resource{
			GVR:        gv.WithResource(names.Plural),
			Kind:       names.Kind,
			Singular:   names.Singular,
			Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
			ShortNames: names.ShortNames,
			Categories: names.Categories,
			Status:     v.Subresources != nil && v.Subresources.Status != nil,
			Scale:      v.Subresources != nil && v.Subresources.Scale != nil,
			Generation: true,
			New: func() runtime.Object {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(gvk)
				return u
			},
			NewList: func() runtime.Object {
				l := &unstructured.UnstructuredList{}
				l.SetGroupVersionKind(listGVK)
				return l
			},
			Fields: func(obj runtime.Object) fields.Set {
				u, _ := obj.(*unstructured.Unstructured)
				if u == nil {
					return nil
				}
				set, _ := compiled.Fields(u)
				return set
			},
		}
		custom := &registry.Custom{
			CRD: crd.Name, UID: crd.UID, StorageVersion: storage, Schema: compiled,
			Convert: conv.convert, ConvertList: conv.convertList, Terminating: crd.DeletionTimestamp != nil,
			Managers: map[string]*managedfields.FieldManager{}, TypeConverter: typeConverter, Versions: listed,
		}
		if res.Scale {
			custom.Scale = v.Subresources.Scale
		}
		subs := []string{""}
		if res.Status {
			subs = append(subs, "status")
		}
		for _, sub := range subs {
			fm, err := managedfields.NewDefaultCRDFieldManager(typeConverter, conv, defaulter{compiled}, creater{}, gvk, gv, sub, resetFields(crd, versions, sub))
			if err != nil {
				return nil, fmt.Errorf("crd %s version %s: field manager: %w", crd.Name, name, err)
			}
			custom.Managers[sub] = fm
		}
		res.Custom = custom
		out = append(out, res)
	}
	return out, errors.Join(compileErrs...)
}

func crdVersion(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// resetFields names the fields a write through the main resource or the
// status subresource may not set, for every served version.
func resetFields(crd *apiextensionsv1.CustomResourceDefinition, compiled map[string]*crdschema.Version, sub string) map[fieldpath.APIVersion]fieldpath.Filter {
	out := map[fieldpath.APIVersion]*fieldpath.Set{}
	for _, v := range compiled {
		for gv, set := range v.ResetFields(sub) {
			out[gv] = set
		}
	}
	if len(out) == 0 {
		return nil
	}
	return fieldpath.NewExcludeFilterSetMap(out)
}

// defaulter adapts a schema to runtime.ObjectDefaulter for the field
// managers.
type defaulter struct{ s *crdschema.Version }

func (d defaulter) Default(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		d.s.Default(u.Object)
	}
}

// creater makes empty custom resources for the field managers.
type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
