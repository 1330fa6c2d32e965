package schema

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The published OpenAPI models follow kube-apiserver's CRD OpenAPI
// builder: the version's structural schema, unfolded
// (x-kubernetes-int-or-string becomes anyOf integer/string), with
// apiVersion, kind and a metadata reference to ObjectMeta added at the
// root and in every embedded resource, the
// x-kubernetes-group-version-kind extension and, for publication, the
// x-kubernetes-selectable-fields one.

const (
	v2Prefix = "#/definitions/"
	v3Prefix = "#/components/schemas/"

	gvkExtension              = "x-kubernetes-group-version-kind"
	selectableFieldsExtension = "x-kubernetes-selectable-fields"
)

var (
	objectMetaModel = metav1.ObjectMeta{}.OpenAPIModelName()
	listMetaModel   = metav1.ListMeta{}.OpenAPIModelName()
	typeMetaModel   = metav1.TypeMeta{}.OpenAPIModelName()

	partialMetadataDescriptions     = metav1beta1.PartialObjectMetadata{}.SwaggerDoc()
	partialMetadataListDescriptions = metav1beta1.PartialObjectMetadataList{}.SwaggerDoc()
)

// metaDefinitions are apimachinery's generated definitions (the ones
// kube-apiserver's builder uses) with $refs of each flavour, built once.
var metaDefinitions = sync.OnceValue(func() map[string]map[string]common.OpenAPIDefinition {
	defs := func(prefix string) map[string]common.OpenAPIDefinition {
		return generatedopenapi.GetOpenAPIDefinitions(func(name string) spec.Ref {
			return spec.MustCreateRef(prefix + common.EscapeJsonPointer(name))
		})
	}
	return map[string]map[string]common.OpenAPIDefinition{v2Prefix: defs(v2Prefix), v3Prefix: defs(v3Prefix)}
})

// setTypeMeta gives s TypeMeta's apiVersion and kind properties (strings,
// with TypeMeta's descriptions), built afresh so that callers may modify
// them.
func setTypeMeta(s *spec.Schema, prefix string) {
	typeMeta := metaDefinitions()[prefix][typeMetaModel].Schema
	for _, name := range []string{"apiVersion", "kind"} {
		s.SetProperty(name, *spec.StringProperty().WithDescription(typeMeta.Properties[name].Description))
	}
}

// modelName is kube-apiserver's OpenAPI model name of a custom kind: the
// group reversed, the version, the kind ("com.example.v1.Widget").
func modelName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version + "." + kind
}

// openAPIState is what the models are built from, kept by Compile.
type openAPIState struct {
	group, version, kind, listKind, plural string
	// schema is the unfolded structural schema, nil when the version has
	// no schema or a non-structural one (published as a bare object).
	schema                *structuralschema.Structural
	preserveUnknownFields bool
	selectableFields      []any
}

// buildOpenAPI keeps what the models need and builds the type converter.
func (v *Version) buildOpenAPI(crd *apiextensionsv1.CustomResourceDefinition, ver *apiextensionsv1.CustomResourceDefinitionVersion, props *apiextensions.JSONSchemaProps) error {
	st := &openAPIState{
		group: crd.Spec.Group, version: ver.Name, kind: crd.Spec.Names.Kind, listKind: crd.Spec.Names.ListKind, plural: crd.Spec.Names.Plural,
		preserveUnknownFields: crd.Spec.PreserveUnknownFields,
	}
	if s, err := structuralschema.NewStructural(props); err == nil && s != nil && len(structuralschema.ValidateStructural(nil, s)) == 0 {
		st.schema = s.Unfold()
	}
	for _, sf := range ver.SelectableFields {
		st.selectableFields = append(st.selectableFields, map[string]any{"fieldPath": strings.TrimPrefix(sf.JSONPath, ".")})
	}
	v.openAPI = st

	tc, err := newTypeConverter(st.preserveUnknownFields, v)
	if err != nil {
		return fmt.Errorf("%w: the type converter of %s %s: %w", ErrSchema, crd.Name, ver.Name, err)
	}
	v.typeConverter = tc
	return nil
}

// ModelName is the OpenAPI model name of the kind in this version
// ("com.example.v1.Widget"), from spec.names as kube-apiserver names it.
func (v *Version) ModelName() string {
	return modelName(v.openAPI.group, v.openAPI.version, v.openAPI.kind)
}

// ListModelName is the OpenAPI model name of the list kind.
func (v *Version) ListModelName() string {
	return modelName(v.openAPI.group, v.openAPI.version, v.openAPI.listKind)
}

// OpenAPI is the OpenAPI v3 schema of the kind as kube-apiserver
// publishes it under /openapi/v3/apis/<group>/<version> (the
// ModelName entry of OpenAPIModels(false)); metadata is a $ref to
// #/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.
// It is what the type checker of admission policies sees, once $refs are
// resolved. Every call returns a fresh copy.
func (v *Version) OpenAPI() *spec.Schema { return v.kindModel(false, true) }

// OpenAPIModels are the kind's and the list kind's models as
// kube-apiserver publishes them, by model name: OpenAPI v2 flavoured
// (#/definitions/ references; nullable, junctors and the properties
// under x-kubernetes-preserve-unknown-fields removed, a schema that
// preserves unknown fields at the root published as a bare object, so
// that kubectl's client-side validation accepts what the server does) when
// v2, v3 otherwise. The references they hold (ObjectMeta, ListMeta) are
// in every Kubernetes document. Every call returns fresh copies.
func (v *Version) OpenAPIModels(v2 bool) map[string]*spec.Schema {
	return map[string]*spec.Schema{
		v.ModelName():     v.kindModel(v2, true),
		v.ListModelName(): v.listModel(v2),
	}
}

func prefixFor(v2 bool) string {
	if v2 {
		return v2Prefix
	}
	return v3Prefix
}

// kindModel builds the kind's model; selectable adds the
// x-kubernetes-selectable-fields extension, which the models for
// server-side apply lack in kube-apiserver.
func (v *Version) kindModel(v2, selectable bool) *spec.Schema {
	st := v.openAPI
	prefix := prefixFor(v2)
	var ret *spec.Schema
	switch {
	case st.schema == nil, v2 && (st.schema.XPreserveUnknownFields || st.preserveUnknownFields):
		// A bare object: properties would make kubectl assume that no
		// other field is allowed.
		ret = &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	default:
		s := st.schema.DeepCopy()
		if v2 {
			toOpenAPIV2(s)
		}
		ret = s.ToKubeOpenAPI()
		ret.SetProperty("metadata", *spec.RefSchema(prefix + objectMetaModel).WithDescription(partialMetadataDescriptions["metadata"]))
		setTypeMeta(ret, prefix)
		addEmbeddedProperties(ret, prefix, v2)
	}
	ret.AddExtension(gvkExtension, []any{map[string]any{"group": st.group, "version": st.version, "kind": st.kind}})
	if selectable && len(st.selectableFields) > 0 {
		ret.AddExtension(selectableFieldsExtension, slices.Clone(st.selectableFields))
	}
	return ret
}

// addEmbeddedProperties gives every x-kubernetes-embedded-resource object
// apiVersion, kind (both required) and metadata, except below
// x-kubernetes-preserve-unknown-fields in v2, where they would make
// kubectl reject the unknown fields.
func addEmbeddedProperties(s *spec.Schema, prefix string, v2 bool) {
	if s == nil {
		return
	}
	for k := range s.Properties {
		p := s.Properties[k]
		addEmbeddedProperties(&p, prefix, v2)
		s.Properties[k] = p
	}
	if s.Items != nil {
		addEmbeddedProperties(s.Items.Schema, prefix, v2)
	}
	if s.AdditionalProperties != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema, prefix, v2)
	}
	if preserve, ok := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields"); ok && preserve && v2 {
		return
	}
	if embedded, ok := s.Extensions.GetBool("x-kubernetes-embedded-resource"); !ok || !embedded {
		return
	}
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription("apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"))
	s.SetProperty("kind", *spec.StringProperty().WithDescription("kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"))
	s.SetProperty("metadata", *spec.RefSchema(prefix + objectMetaModel).WithDescription(partialMetadataDescriptions["metadata"]))
	if !slices.Contains(s.Required, "kind") {
		s.Required = append(s.Required, "kind")
	}
	if !slices.Contains(s.Required, "apiVersion") {
		s.Required = append(s.Required, "apiVersion")
	}
}

// listModel is the list kind's model.
func (v *Version) listModel(v2 bool) *spec.Schema {
	st := v.openAPI
	prefix := prefixFor(v2)
	s := new(spec.Schema).
		Typed("object", "").
		WithDescription(fmt.Sprintf("%s is a list of %s", st.listKind, st.kind)).
		WithRequired("items").
		SetProperty("items", *spec.ArrayProperty(spec.RefSchema(prefix + v.ModelName())).WithDescription(fmt.Sprintf("List of %s. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", st.plural))).
		SetProperty("metadata", *spec.RefSchema(prefix + listMetaModel).WithDescription(partialMetadataListDescriptions["metadata"]))
	setTypeMeta(s, prefix)
	s.AddExtension(gvkExtension, []any{map[string]any{"group": st.group, "version": st.version, "kind": st.listKind}})
	if len(st.selectableFields) > 0 {
		s.AddExtension(selectableFieldsExtension, slices.Clone(st.selectableFields))
	}
	return s
}

// toOpenAPIV2 rewrites s, a copy, in the form kubectl's OpenAPI v2 client
// copes with, node by node from the root: no allOf, anyOf, oneOf or not;
// a nullable node loses its type, nullability, items and properties; a
// node that preserves unknown fields loses its items and properties (and
// its type, if object); an array without items loses its type; a nullable
// property is no longer required, and with nullable additionalProperties
// nothing is.
func toOpenAPIV2(s *structuralschema.Structural) {
	if s == nil {
		return
	}
	if vv := s.ValueValidation; vv != nil {
		vv.AllOf, vv.AnyOf, vv.OneOf, vv.Not = nil, nil, nil, nil
	}
	if s.Nullable {
		s.Type, s.Nullable = "", false
		s.Items, s.Properties = nil, nil
	}
	if s.XPreserveUnknownFields {
		s.Items, s.Properties = nil, nil
		if s.Type == "object" {
			s.Type = ""
		}
	}
	if s.Items == nil && s.Type == "array" {
		s.Type = ""
	}
	if s.ValueValidation != nil {
		for name, p := range s.Properties {
			if p.Nullable {
				s.ValueValidation.Required = slices.DeleteFunc(s.ValueValidation.Required, func(r string) bool { return r == name })
			}
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil && ap.Structural.Nullable {
			s.ValueValidation.Required = nil
		}
	}

	toOpenAPIV2(s.Items)
	for name, p := range s.Properties {
		toOpenAPIV2(&p)
		s.Properties[name] = p
	}
	if ap := s.AdditionalProperties; ap != nil {
		toOpenAPIV2(ap.Structural)
	}
}

// TypeConverter is the type converter of this version alone for
// server-side apply; see NewTypeConverter.
func (v *Version) TypeConverter() managedfields.TypeConverter { return v.typeConverter }

// NewTypeConverter is the type converter for server-side apply of a
// CustomResourceDefinition's versions, as kube-apiserver builds it: from
// the v3 models of the kinds (without selectable fields) and ObjectMeta,
// so that x-kubernetes-list-type (atomic, set, map with
// x-kubernetes-list-map-keys), x-kubernetes-map-type and
// x-kubernetes-preserve-unknown-fields (and the legacy
// spec.preserveUnknownFields) decide how fields merge and who owns them,
// and embedded resources have ObjectMeta's structure. A field manager
// converts managed fields between versions, so it needs every version of
// the CustomResourceDefinition: pass them all.
func NewTypeConverter(versions ...*Version) (managedfields.TypeConverter, error) {
	preserve := false
	for _, v := range versions {
		preserve = preserve || v.openAPI.preserveUnknownFields
	}
	return newTypeConverter(preserve, versions...)
}

func newTypeConverter(preserveUnknownFields bool, versions ...*Version) (managedfields.TypeConverter, error) {
	models := map[string]*spec.Schema{}
	for name, def := range metaModels() {
		models[name] = def
	}
	for _, v := range versions {
		models[v.ModelName()] = v.kindModel(false, false)
	}
	return managedfields.NewTypeConverter(models, preserveUnknownFields)
}

// metaModels are ObjectMeta and the definitions it refers to, in the v3
// flavour, which the kinds refer to.
func metaModels() map[string]*spec.Schema {
	defs := metaDefinitions()[v3Prefix]
	out := map[string]*spec.Schema{}
	var add func(name string)
	add = func(name string) {
		if _, ok := out[name]; ok {
			return
		}
		def := defs[name]
		schema := def.Schema
		out[name] = &schema
		for _, dep := range def.Dependencies {
			add(dep)
		}
	}
	add(objectMetaModel)
	return out
}
