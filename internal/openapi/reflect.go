package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// The methods that k8s.io/api and k8s.io/apimachinery types carry for
// openapi-gen; reflection reads the same information openapi-gen reads from
// the source.
type (
	swaggerDocer interface{ SwaggerDoc() map[string]string }
	modelNamer   interface{ OpenAPIModelName() string }
	schemaTyper  interface {
		OpenAPISchemaType() []string
		OpenAPISchemaFormat() string
	}
	oneOfTyper interface{ OpenAPIV3OneOfTypes() []string }
)

var timeType = reflect.TypeFor[time.Time]()

// reflector turns Go types into definitions. It is not safe for concurrent
// use; New runs it once.
type reflector struct {
	defs map[string]*node
	// gvks gives the x-kubernetes-group-version-kind of the Go types that
	// the scheme registers in a served group-version.
	gvks map[reflect.Type][]gvk
}

func newReflector(gvks map[reflect.Type][]gvk) *reflector {
	return &reflector{defs: map[string]*node{}, gvks: gvks}
}

// use returns the schema of a field, item or value of type t: a reference
// for named structs and the types with their own OpenAPI form, an inline
// schema for everything else.
func (r *reflector) use(t reflect.Type) (*node, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return &node{Type: "string", Format: "date-time"}, nil
	}
	if t.Name() != "" && (t.Kind() == reflect.Struct || implements[schemaTyper](t)) {
		name, err := r.define(t)
		if err != nil {
			return nil, err
		}
		return &node{Ref: name}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return &node{Type: "string"}, nil
	case reflect.Bool:
		return &node{Type: "boolean"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return &node{Type: "integer", Format: "int32"}, nil
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return &node{Type: "integer", Format: "int64"}, nil
	case reflect.Float32:
		return &node{Type: "number", Format: "float"}, nil
	case reflect.Float64:
		return &node{Type: "number", Format: "double"}, nil
	case reflect.Interface:
		// Any JSON value: an empty schema says exactly that.
		return &node{}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &node{Type: "string", Format: "byte"}, nil
		}
		items, err := r.element(t.Elem())
		if err != nil {
			return nil, err
		}
		return &node{Type: "array", Items: items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%w: %v has non-string keys", ErrUnsupportedType, t)
		}
		values, err := r.element(t.Elem())
		if err != nil {
			return nil, err
		}
		return &node{Type: "object", AdditionalProperties: values}, nil
	case reflect.Struct:
		// An anonymous struct type: inline, as it has no name to refer to.
		s := &node{Type: "object"}
		if err := r.fields(t, s, nil, map[string]bool{}); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("%w: %v", ErrUnsupportedType, t)
}

// element is use for the items of a slice or the values of a map, which
// openapi-gen gives the zero value as default unless they are pointers.
func (r *reflector) element(t reflect.Type) (*node, error) {
	s, err := r.use(t)
	if err != nil {
		return nil, err
	}
	if t.Kind() != reflect.Pointer {
		s.Default = zeroDefault(t)
	}
	return s, nil
}

// define makes sure the definition of the named type t exists and returns
// its name.
func (r *reflector) define(t reflect.Type) (string, error) {
	name := definitionName(t)
	if _, ok := r.defs[name]; ok {
		return name, nil
	}
	docs := swaggerDoc(t)
	if docs == nil {
		docs = fallbackDocs[name]
	}
	s := &node{Description: docs[""], GVK: r.gvks[t]}
	// Registered before the fields are walked so that recursive types
	// (JSONSchemaProps) end in a reference to themselves.
	r.defs[name] = s

	if typer, ok := valueOf[schemaTyper](t); ok {
		if types := typer.OpenAPISchemaType(); len(types) > 0 {
			s.Type = types[0]
		}
		s.Format = typer.OpenAPISchemaFormat()
		if o, ok := valueOf[oneOfTyper](t); ok {
			s.OneOf = o.OpenAPIV3OneOfTypes()
		}
		s.IntOrString = s.Format == "int-or-string"
		return name, nil
	}
	s.Type = "object"
	if implements[json.Marshaler](t) {
		// Custom JSON (RawExtension, FieldsV1): any object, as the reference.
		return name, nil
	}
	if err := r.fields(t, s, docs, map[string]bool{}); err != nil {
		delete(r.defs, name)
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return name, nil
}

// fields adds the JSON fields of struct t to s, flattening embedded structs
// the way encoding/json does. seen holds the names already taken by a
// shallower field, which win.
//
// A field is required unless its json tag says omitempty or omitzero, as
// openapi-gen decides, with the exceptions its +optional and +required
// markers make (zz_generated.markers.go).
func (r *reflector) fields(t reflect.Type, s *node, docs map[string]string, seen map[string]bool) error {
	var optionalMarked, requiredMarked []string
	if t.Name() != "" {
		owner := definitionName(t)
		optionalMarked, requiredMarked = markedOptional[owner], markedRequired[owner]
	}
	var inline []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if ft := deref(f.Type); ft.Kind() == reflect.Struct {
				inline = append(inline, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		p, err := r.use(f.Type)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		p.Description = docs[name]
		omit := hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
		optional := (omit || slices.Contains(optionalMarked, name)) && !slices.Contains(requiredMarked, name)
		if f.Type.Kind() != reflect.Pointer && (!omit || deref(f.Type).Kind() == reflect.Struct) {
			p.Default = zeroDefault(f.Type)
		}
		p.PatchStrategy = f.Tag.Get("patchStrategy")
		p.PatchMergeKey = f.Tag.Get("patchMergeKey")
		if s.Properties == nil {
			s.Properties = map[string]*node{}
		}
		s.Properties[name] = p
		if !optional {
			s.Required = append(s.Required, name)
		}
	}
	for _, ft := range inline {
		if err := r.fields(ft, s, swaggerDoc(ft), seen); err != nil {
			return err
		}
	}
	return nil
}

// definitionName is the name kube-apiserver gives the definition of t:
// the generated OpenAPIModelName where there is one, otherwise the package
// path with its domain reversed ("k8s.io/api/core/v1" -> "io.k8s.api.core.v1").
func definitionName(t reflect.Type) string {
	if n, ok := valueOf[modelNamer](t); ok {
		if name := n.OpenAPIModelName(); name != "" {
			return name
		}
	}
	segments := strings.Split(t.PkgPath(), "/")
	if host := strings.Split(segments[0], "."); len(host) > 1 {
		for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
			host[i], host[j] = host[j], host[i]
		}
		segments[0] = strings.Join(host, ".")
	}
	return strings.Join(segments, ".") + "." + t.Name()
}

func swaggerDoc(t reflect.Type) map[string]string {
	if d, ok := valueOf[swaggerDocer](t); ok {
		return d.SwaggerDoc()
	}
	return nil
}

// valueOf returns the zero value of t (or a pointer to it, for methods with
// pointer receivers) as an I.
func valueOf[I any](t reflect.Type) (I, bool) {
	if v, ok := reflect.Zero(t).Interface().(I); ok {
		return v, true
	}
	v, ok := reflect.New(t).Interface().(I)
	return v, ok
}

func implements[I any](t reflect.Type) bool {
	i := reflect.TypeFor[I]()
	return t.Implements(i) || reflect.PointerTo(t).Implements(i)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// zeroDefault is the JSON of t's zero value as openapi-gen publishes it, or
// nil for kinds it gives no default (slices, maps, pointers).
func zeroDefault(t reflect.Type) json.RawMessage {
	switch t.Kind() {
	case reflect.Struct:
		return defaultObject
	case reflect.String:
		return defaultString
	case reflect.Bool:
		return defaultBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return defaultNumber
	}
	return nil
}
