package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The definitions of a custom kind and its list, as kube-apiserver's CRD
// OpenAPI builder makes them from the version's structural schema:
//
//   - x-kubernetes-int-or-string is unfolded into anyOf integer, string
//     (kube-apiserver's Structural.Unfold);
//   - for v2 only, what kubectl's v2 client cannot take is dropped, node
//     by node from the root (kube-apiserver's ToStructuralOpenAPIV2): allOf,
//     anyOf, oneOf and not; a nullable node's type, items and properties;
//     the items and properties of a node that preserves unknown fields, and
//     its type if object; the type of an array left without items; a
//     nullable property from required, and every required with nullable
//     additionalProperties. Defaults go too, as from every v2 definition;
//   - apiVersion, kind and a reference to ObjectMeta are set at the root
//     and in every x-kubernetes-embedded-resource object (but, in v2, not
//     where unknown fields are preserved, which kubectl would then reject);
//   - in v2, a root that preserves unknown fields is published as a bare
//     object, as is, in both, a version without a schema;
//   - the root carries x-kubernetes-group-version-kind and
//     x-kubernetes-selectable-fields; the list, which has apiVersion, kind,
//     items and a reference to ListMeta, carries them too, for the list kind.
//
// In v3 a reference with siblings is wrapped in allOf, as kube-openapi
// wraps every reference of the documents it builds.

const (
	extPreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	extEmbeddedResource      = "x-kubernetes-embedded-resource"
	extIntOrString           = "x-kubernetes-int-or-string"
	extGVK                   = "x-kubernetes-group-version-kind"
	extSelectableFields      = "x-kubernetes-selectable-fields"

	objectMetaDef = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	listMetaDef   = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"

	embeddedAPIVersionDoc = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKindDoc       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

var (
	typeMetaDocs    = metav1.TypeMeta{}.SwaggerDoc()
	objectMetaDoc   = metav1beta1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]
	listMetaDoc     = metav1beta1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]
	intOrStringAnyO = []spec.Schema{
		{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"integer"}}},
		{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}},
	}
)

// customKindSchema is the definition of cr's kind in flavour f.
func customKindSchema(cr CustomResource, f flavour) *spec.Schema {
	var in spec.Schema
	if cr.Schema != nil {
		in = *cr.Schema
	}
	// A published model (it has the group-version-kind) has had the
	// embedded resources' apiVersion and kind made required, and one
	// without properties is the bare object of a version without a schema.
	published := in.Extensions[extGVK] != nil
	var out *spec.Schema
	var ext spec.Extensions
	if cr.Schema == nil || (published && len(in.Properties) == 0) || (!f.v3 && boolExtension(&in, extPreserveUnknownFields)) {
		// Properties would make kubectl take every other field for
		// unknown. Of the schema's extensions, the bare object keeps only
		// the selectable fields of a published model.
		out = &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}
		ext = spec.Extensions{}
		if sf, ok := in.Extensions[extSelectableFields]; ok {
			ext[extSelectableFields] = sf
		}
	} else {
		// In v2, embedded resources that preserve unknown fields do not
		// require apiVersion and kind.
		s := walkStructural(in, func(s *spec.Schema) {
			unfold(s)
			if !f.v3 {
				toV2(s, published)
			}
		})
		out = &s
		setTypeMeta(out)
		out.SetProperty("metadata", f.refWithDescription(objectMetaDef, objectMetaDoc))
		addEmbeddedProperties(out, f)
		// The root's own extensions stay (x-kubernetes-validations, ...).
		ext = maps.Clone(out.Extensions)
		if ext == nil {
			ext = spec.Extensions{}
		}
	}
	ext[extGVK] = []any{map[string]any{"group": cr.GVK.Group, "version": cr.GVK.Version, "kind": cr.GVK.Kind}}
	if cr.SelectableFields != nil {
		delete(ext, extSelectableFields)
		if len(cr.SelectableFields) > 0 {
			fields := make([]any, len(cr.SelectableFields))
			for i, p := range cr.SelectableFields {
				fields[i] = map[string]any{"fieldPath": strings.TrimPrefix(p, ".")}
			}
			ext[extSelectableFields] = fields
		}
	}
	out.Extensions = ext
	return out
}

// customListSchema is the definition of cr's list kind in flavour f;
// kindRef names the kind's definition and kind is it, whose selectable
// fields the list has too.
func customListSchema(cr CustomResource, kind *spec.Schema, kindRef string, f flavour) *spec.Schema {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{
		Description: fmt.Sprintf("%s is a list of %s", cr.ListGVK.Kind, cr.GVK.Kind),
		Type:        spec.StringOrArray{"object"},
		Required:    []string{"items"},
	}}
	items := spec.ArrayProperty(spec.RefSchema(f.refPrefix + kindRef))
	items.Description = fmt.Sprintf("List of %s. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", cr.Plural)
	s.SetProperty("items", *items)
	s.SetProperty("metadata", f.refWithDescription(listMetaDef, listMetaDoc))
	setTypeMeta(s)
	s.AddExtension(extGVK, []any{map[string]any{"group": cr.ListGVK.Group, "version": cr.ListGVK.Version, "kind": cr.ListGVK.Kind}})
	if sf, ok := kind.Extensions[extSelectableFields]; ok {
		s.AddExtension(extSelectableFields, sf)
	}
	return s
}

// refWithDescription is a described reference: in v3 wrapped in allOf,
// which is how a reference may have siblings there.
func (f flavour) refWithDescription(name, description string) spec.Schema {
	ref := spec.RefSchema(f.refPrefix + name)
	if !f.v3 {
		return *ref.WithDescription(description)
	}
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, AllOf: []spec.Schema{*ref}}}
}

// setTypeMeta sets TypeMeta's apiVersion and kind properties.
func setTypeMeta(s *spec.Schema) {
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription(typeMetaDocs["apiVersion"]))
	s.SetProperty("kind", *spec.StringProperty().WithDescription(typeMetaDocs["kind"]))
}

// walkStructural returns a copy of s with fn applied to every node of its
// structure (the root, properties, items and additionalProperties, not
// what is below allOf, anyOf, oneOf or not), each node before those below
// it. fn gets a copy of the node, whose maps and slices it must replace
// rather than modify.
func walkStructural(s spec.Schema, fn func(*spec.Schema)) spec.Schema {
	fn(&s)
	if len(s.Properties) > 0 {
		props := make(map[string]spec.Schema, len(s.Properties))
		for k, p := range s.Properties {
			props[k] = walkStructural(p, fn)
		}
		s.Properties = props
	}
	if s.Items != nil && s.Items.Schema != nil {
		items := walkStructural(*s.Items.Schema, fn)
		s.Items = &spec.SchemaOrArray{Schema: &items}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		ap := walkStructural(*s.AdditionalProperties.Schema, fn)
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: s.AdditionalProperties.Allows, Schema: &ap}
	}
	return s
}

// unfold gives an x-kubernetes-int-or-string node its anyOf integer,
// string, unless it has it already (first in allOf, or as its anyOf).
func unfold(s *spec.Schema) {
	if !boolExtension(s, extIntOrString) {
		return
	}
	if isIntOrStringAnyOf(s.AnyOf) || (len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)) {
		return
	}
	if len(s.AnyOf) == 0 {
		s.AnyOf = slices.Clone(intOrStringAnyO)
		return
	}
	s.AllOf = append([]spec.Schema{{SchemaProps: spec.SchemaProps{AnyOf: slices.Clone(intOrStringAnyO)}}}, s.AllOf...)
}

func isIntOrStringAnyOf(anyOf []spec.Schema) bool {
	return reflect.DeepEqual(anyOf, intOrStringAnyO)
}

// toV2 rewrites one node for v2 (see the top of this file). published says
// the schema is a published model, whose embedded resources have been given
// apiVersion and kind in required already.
func toV2(s *spec.Schema, published bool) {
	s.AllOf, s.AnyOf, s.OneOf, s.Not = nil, nil, nil, nil
	if s.Nullable {
		s.Type, s.Nullable = nil, false
		s.Items, s.Properties = nil, nil
	}
	preserve := boolExtension(s, extPreserveUnknownFields)
	if preserve {
		s.Items, s.Properties = nil, nil
		if published && boolExtension(s, extEmbeddedResource) {
			s.Required = dropNames(s.Required, "kind", "apiVersion")
		}
	}
	if (s.Items == nil || s.Items.Schema == nil) && hasType(s, "array") {
		s.Type = nil
	}
	if preserve && hasType(s, "object") {
		s.Type = nil
	}
	for name, p := range s.Properties {
		if p.Nullable {
			s.Required = dropNames(s.Required, name)
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil && ap.Schema.Nullable {
		s.Required = nil
	}
	s.Default = nil
}

// dropNames returns a copy of list without names, nil if nothing is left.
func dropNames(list []string, names ...string) []string {
	out := slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(names, s) })
	if len(out) == 0 {
		return nil
	}
	return out
}

func hasType(s *spec.Schema, t string) bool {
	return len(s.Type) == 1 && s.Type[0] == t
}

func boolExtension(s *spec.Schema, name string) bool {
	v, ok := s.Extensions.GetBool(name)
	return ok && v
}

// addEmbeddedProperties gives every embedded resource below s (and s
// itself) apiVersion, kind and metadata, apiVersion and kind required; in
// v2, not where unknown fields are preserved.
func addEmbeddedProperties(s *spec.Schema, f flavour) {
	for k, p := range s.Properties {
		addEmbeddedProperties(&p, f)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		addEmbeddedProperties(s.Items.Schema, f)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema, f)
	}
	if !f.v3 && boolExtension(s, extPreserveUnknownFields) {
		return
	}
	if !boolExtension(s, extEmbeddedResource) {
		return
	}
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription(embeddedAPIVersionDoc))
	s.SetProperty("kind", *spec.StringProperty().WithDescription(embeddedKindDoc))
	s.SetProperty("metadata", f.refWithDescription(objectMetaDef, objectMetaDoc))
	required := slices.Clip(s.Required)
	if !slices.Contains(required, "kind") {
		required = append(required, "kind")
	}
	if !slices.Contains(required, "apiVersion") {
		required = append(required, "apiVersion")
	}
	s.Required = required
}

// schemaRefs lists the definitions that s refers to, by name.
func schemaRefs(s *spec.Schema, prefix string) []string {
	var out []string
	var walk func(*spec.Schema)
	walk = func(s *spec.Schema) {
		if s == nil {
			return
		}
		if ref := s.Ref.String(); ref != "" {
			out = append(out, strings.TrimPrefix(ref, prefix))
		}
		for _, p := range s.Properties {
			walk(&p)
		}
		if s.Items != nil {
			walk(s.Items.Schema)
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Schema)
		}
		for i := range s.AllOf {
			walk(&s.AllOf[i])
		}
	}
	walk(s)
	slices.Sort(out)
	return slices.Compact(out)
}
