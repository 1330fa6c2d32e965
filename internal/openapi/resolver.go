package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// SchemaResolver resolves served kinds, built-in and custom, to their
// schemas with every $ref inlined, as the CEL type checker of admission
// policies needs them. It reads the rendered v3 documents, so it costs
// nothing until first used, and follows SetCustom: a group-version's
// definitions are parsed again when its document changes.
type SchemaResolver struct {
	d     *Documents
	mu    sync.Mutex
	cache map[schema.GroupVersion]parsedDocument
}

// parsedDocument is the definitions of a group-version's document, and the
// hash of the document they were parsed from.
type parsedDocument struct {
	hash string
	defs map[string]*spec.Schema
}

// Resolver returns a SchemaResolver over d.
func (d *Documents) Resolver() *SchemaResolver {
	return &SchemaResolver{d: d, cache: map[schema.GroupVersion]parsedDocument{}}
}

// ResolveSchema returns the schema of gvk, or an error when it is not served.
func (r *SchemaResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	defs, err := r.definitions(gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	for _, s := range defs {
		for _, k := range gvkExtension(s) {
			if k == gvk {
				return inline(s, defs, map[string]bool{})
			}
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownKind, gvk)
}

func (r *SchemaResolver) definitions(gv schema.GroupVersion) (map[string]*spec.Schema, error) {
	b, err := r.d.build()
	if err != nil {
		return nil, err
	}
	doc, ok := b.gvs[gvPath(gv)]
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		delete(r.cache, gv)
		return nil, fmt.Errorf("%w: %s", ErrUnknownKind, gv)
	}
	if p, ok := r.cache[gv]; ok && p.hash == doc.json.hash {
		return p.defs, nil
	}
	var parsed struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	js, err := doc.json.plain()
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(js, &parsed); err != nil {
		return nil, fmt.Errorf("parsing the %s document: %w", gv, err)
	}
	r.cache[gv] = parsedDocument{hash: doc.json.hash, defs: parsed.Components.Schemas}
	return parsed.Components.Schemas, nil
}

func gvkExtension(s *spec.Schema) []schema.GroupVersionKind {
	raw, ok := s.Extensions["x-kubernetes-group-version-kind"]
	if !ok {
		return nil
	}
	data, _ := json.Marshal(raw)
	var out []schema.GroupVersionKind
	_ = json.Unmarshal(data, &out)
	return out
}

// inline returns a copy of s with its references replaced by the schemas
// they name; a reference cycle is left as an open object.
func inline(s *spec.Schema, defs map[string]*spec.Schema, visiting map[string]bool) (*spec.Schema, error) {
	if s == nil {
		return nil, nil
	}
	out := *s
	if ref := s.Ref.String(); ref != "" {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		target, ok := defs[name]
		if !ok {
			return nil, fmt.Errorf("unresolved reference %s", ref)
		}
		if visiting[name] {
			return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}, nil
		}
		visiting[name] = true
		defer delete(visiting, name)
		resolved, err := inline(target, defs, visiting)
		if err != nil {
			return nil, err
		}
		// Keep the referring schema's own description and extensions.
		if s.Description != "" {
			resolved.Description = s.Description
		}
		return resolved, nil
	}
	if len(s.AllOf) == 1 && s.AllOf[0].Ref.String() != "" {
		r, err := inline(&s.AllOf[0], defs, visiting)
		if err != nil {
			return nil, err
		}
		r.Description = s.Description
		for k, v := range s.Extensions {
			r.AddExtension(k, v)
		}
		return r, nil
	}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]spec.Schema, len(s.Properties))
		for k, p := range s.Properties {
			r, err := inline(&p, defs, visiting)
			if err != nil {
				return nil, err
			}
			out.Properties[k] = *r
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		r, err := inline(s.Items.Schema, defs, visiting)
		if err != nil {
			return nil, err
		}
		out.Items = &spec.SchemaOrArray{Schema: r}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		r, err := inline(s.AdditionalProperties.Schema, defs, visiting)
		if err != nil {
			return nil, err
		}
		out.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: r}
	}
	return &out, nil
}
