package schema

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Coerce is kube-apiserver's decoding step for a custom resource in a
// request body, after JSON or YAML has been parsed into obj (create,
// update, patch results, admission mutations):
//
//   - metadata is decoded into ObjectMeta and written back in its
//     canonical form, so unknown metadata fields disappear and fields of
//     the wrong type fail;
//   - unknown fields are pruned (Prune) and nulls that the schema neither
//     allows nor defaults are dropped, unless the CRD has the legacy
//     spec.preserveUnknownFields;
//   - the metadata of embedded resources (x-kubernetes-embedded-resource)
//     is coerced the same way, and their apiVersion and kind must be
//     strings.
//
// Objects of another kind (apiVersion of another group, or another kind)
// only get their metadata coerced, as in kube-apiserver, whose decoder
// also sees option types.
//
// The result lists every dropped unknown field, as kube-apiserver spells
// it after `unknown field "`: metadata ones first ("metadata.foo"), then
// pruned ones ("spec.foo", "spec.list[0].bar", sorted), then those in
// embedded metadata. fieldValidation=Strict answers them with a 400
// (kube-apiserver's strict decoding error: `strict decoding error:
// unknown field "spec.foo", ...`), Warn with one warning each, Ignore
// drops them silently.
//
// An error means obj cannot be decoded (apiVersion or kind not a
// string, metadata of the wrong type, an embedded resource whose
// apiVersion or kind is not a string); kube-apiserver answers it with 400
// Bad Request: `<Kind> in version "<v>" cannot be handled as a <Kind>:
// <error>`.
func (v *Version) Coerce(obj *unstructured.Unstructured) ([]string, error) {
	return v.coerce(obj, false)
}

// CoerceStored is Coerce for an object read from storage, as
// kube-apiserver's storage decoder does it: metadata fields of the wrong
// type (objects written before metadata was validated) are dropped rather
// than failing, a generation of 0 (objects from before generations)
// becomes 1, and unknown fields are pruned without being reported. The
// caller defaults the object afterwards (Default), as kube-apiserver does
// on every read.
func (v *Version) CoerceStored(obj *unstructured.Unstructured) error {
	_, err := v.coerce(obj, true)
	return err
}

func (v *Version) coerce(obj *unstructured.Unstructured, stored bool) ([]string, error) {
	content := obj.UnstructuredContent()
	kind, foundKind, err := unstructured.NestedString(content, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(content, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(content, schemaobjectmeta.ObjectMetaOptions{
		DropMalformedFields:     stored,
		ReturnUnknownFieldPaths: !stored,
	})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}

	if gv.Group == v.gvk.Group && kind == v.gvk.Kind {
		if !v.preserveUnknownFields {
			unknown = append(unknown, v.prune(content, !stored)...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(content, v.structural)
		}
		ferr, embedded := schemaobjectmeta.CoerceWithOptions(nil, content, v.structural, false, schemaobjectmeta.CoerceOptions{
			DropInvalidFields:       stored,
			ReturnUnknownFieldPaths: !stored,
		})
		if ferr != nil {
			return nil, ferr
		}
		unknown = append(unknown, embedded...)
		if stored && objectMeta != nil && objectMeta.Generation == 0 {
			objectMeta.Generation = 1
		}
	}

	// The meta fields are written back from what was read, starting clean.
	if foundKind {
		obj.SetKind(kind)
	}
	if foundAPIVersion {
		obj.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// Prune drops the fields of obj (a whole object) that the schema does not
// specify, leaving apiVersion, kind and metadata at the root and in
// embedded resources alone (Coerce handles those), and returns their
// paths, sorted, as kube-apiserver reports them ("spec.foo",
// "spec.items[1].bar"). Fields under x-kubernetes-preserve-unknown-fields
// stay. A CRD with the legacy spec.preserveUnknownFields prunes nothing.
// Prune is part of Coerce; call it alone for an object that did not come
// through Coerce.
func (v *Version) Prune(obj map[string]any) []string {
	if v.preserveUnknownFields {
		return nil
	}
	return v.prune(obj, true)
}

func (v *Version) prune(obj map[string]any, track bool) []string {
	return structuralpruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: track})
}

// Default sets the schema's defaults in obj (a whole object), where a
// field is absent or null without being nullable, as kube-apiserver does
// for a request body after Coerce and for every object read from storage.
// Defaults are deep-copied, so obj never shares them.
func (v *Version) Default(obj map[string]any) {
	structuraldefaulting.Default(obj, v.structural)
}
