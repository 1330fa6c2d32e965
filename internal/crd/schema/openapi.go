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
	v3Prefix = "#/components/schemas/"

	gvkExtension              = "x-kubernetes-group-version-kind"
	selectableFieldsExtension = "x-kubernetes-selectable-fields"
)

var (
	objectMetaModel = metav1.ObjectMeta{}.OpenAPIModelName()
	typeMetaModel   = metav1.TypeMeta{}.OpenAPIModelName()

	partialMetadataDescriptions = metav1beta1.PartialObjectMetadata{}.SwaggerDoc()
)

// metaDefinitions are apimachinery's generated definitions (the ones
// kube-apiserver's builder uses) with v3 $refs, built once.
var metaDefinitions = sync.OnceValue(func() map[string]common.OpenAPIDefinition {
	return generatedopenapi.GetOpenAPIDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef(v3Prefix + common.EscapeJsonPointer(name))
	})
})

// setTypeMeta gives s TypeMeta's apiVersion and kind properties (strings,
// with TypeMeta's descriptions), built afresh so that callers may modify
// them.
func setTypeMeta(s *spec.Schema) {
	typeMeta := metaDefinitions()[typeMetaModel].Schema
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
	group, version, kind string
	// schema is the unfolded structural schema, nil when the version has
	// no schema or a non-structural one (published as a bare object).
	schema                *structuralschema.Structural
	preserveUnknownFields bool
	selectableFields      []any
}

// buildOpenAPI keeps what the models need and builds the type converter.
func (v *Version) buildOpenAPI(crd *apiextensionsv1.CustomResourceDefinition, ver *apiextensionsv1.CustomResourceDefinitionVersion, props *apiextensions.JSONSchemaProps) error {
	st := &openAPIState{
		group: crd.Spec.Group, version: ver.Name, kind: crd.Spec.Names.Kind,
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

// OpenAPI is the OpenAPI v3 schema of the kind as kube-apiserver
// publishes it under /openapi/v3/apis/<group>/<version> (the
// ModelName entry of OpenAPIModels(false)); metadata is a $ref to
// #/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.
// It is what the type checker of admission policies sees, once $refs are
// resolved. Every call returns a fresh copy.
func (v *Version) OpenAPI() *spec.Schema { return v.kindModel(true) }

// kindModel builds the kind's v3 model (internal/openapi derives the v2
// one); selectable adds the x-kubernetes-selectable-fields extension,
// which the models for server-side apply lack in kube-apiserver.
func (v *Version) kindModel(selectable bool) *spec.Schema {
	st := v.openAPI
	var ret *spec.Schema
	if st.schema == nil {
		ret = &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	} else {
		ret = st.schema.DeepCopy().ToKubeOpenAPI()
		ret.SetProperty("metadata", *spec.RefSchema(v3Prefix + objectMetaModel).WithDescription(partialMetadataDescriptions["metadata"]))
		setTypeMeta(ret)
		addEmbeddedProperties(ret)
	}
	ret.AddExtension(gvkExtension, []any{map[string]any{"group": st.group, "version": st.version, "kind": st.kind}})
	if selectable && len(st.selectableFields) > 0 {
		ret.AddExtension(selectableFieldsExtension, slices.Clone(st.selectableFields))
	}
	return ret
}

// addEmbeddedProperties gives every x-kubernetes-embedded-resource object
// apiVersion, kind (both required) and metadata.
func addEmbeddedProperties(s *spec.Schema) {
	if s == nil {
		return
	}
	for k := range s.Properties {
		p := s.Properties[k]
		addEmbeddedProperties(&p)
		s.Properties[k] = p
	}
	if s.Items != nil {
		addEmbeddedProperties(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema)
	}
	if embedded, ok := s.Extensions.GetBool("x-kubernetes-embedded-resource"); !ok || !embedded {
		return
	}
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription("apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"))
	s.SetProperty("kind", *spec.StringProperty().WithDescription("kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"))
	s.SetProperty("metadata", *spec.RefSchema(v3Prefix + objectMetaModel).WithDescription(partialMetadataDescriptions["metadata"]))
	if !slices.Contains(s.Required, "kind") {
		s.Required = append(s.Required, "kind")
	}
	if !slices.Contains(s.Required, "apiVersion") {
		s.Required = append(s.Required, "apiVersion")
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
		models[v.ModelName()] = v.kindModel(false)
	}
	return managedfields.NewTypeConverter(models, preserveUnknownFields)
}

// metaModels are ObjectMeta and the definitions it refers to, in the v3
// flavour, which the kinds refer to.
func metaModels() map[string]*spec.Schema {
	defs := metaDefinitions()
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
