package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// wireSchema is a schema as written in either document. Struct fields
// rather than maps keep encoding fast; the extensions are the ones this
// package emits.
type wireSchema struct {
	Ref                  string                 `json:"$ref,omitempty"`
	Description          string                 `json:"description,omitempty"`
	Type                 string                 `json:"type,omitempty"`
	Format               string                 `json:"format,omitempty"`
	Default              json.RawMessage        `json:"default,omitempty"`
	AllOf                []*wireSchema          `json:"allOf,omitempty"`
	OneOf                []*wireSchema          `json:"oneOf,omitempty"`
	Items                *wireSchema            `json:"items,omitempty"`
	Properties           map[string]*wireSchema `json:"properties,omitempty"`
	AdditionalProperties *wireSchema            `json:"additionalProperties,omitempty"`
	Required             []string               `json:"required,omitempty"`
	UniqueItems          bool                   `json:"uniqueItems,omitempty"`

	GVK           []gvk    `json:"x-kubernetes-group-version-kind,omitempty"`
	IntOrString   bool     `json:"x-kubernetes-int-or-string,omitempty"`
	ListMapKeys   []string `json:"x-kubernetes-list-map-keys,omitempty"`
	ListType      string   `json:"x-kubernetes-list-type,omitempty"`
	MapType       string   `json:"x-kubernetes-map-type,omitempty"`
	PatchMergeKey string   `json:"x-kubernetes-patch-merge-key,omitempty"`
	PatchStrategy string   `json:"x-kubernetes-patch-strategy,omitempty"`
}

// flavour is what differs between the v2 and v3 renderings of a schema.
type flavour struct {
	refPrefix string // "#/definitions/" or "#/components/schemas/"
	// v3 can say that a value has several forms (oneOf) and that a
	// reference has siblings (allOf); v2 cannot.
	v3 bool
}

var (
	v2Flavour = flavour{refPrefix: "#/definitions/"}
	v3Flavour = flavour{refPrefix: "#/components/schemas/", v3: true}
)

func (f flavour) ref(name string) *wireSchema {
	return &wireSchema{Ref: f.refPrefix + name}
}

// render writes s in flavour f.
func (f flavour) render(s *node) *wireSchema {
	if s == nil {
		return nil
	}
	w := &wireSchema{
		Description:   s.Description,
		Type:          s.Type,
		Format:        s.Format,
		Default:       s.Default,
		Items:         f.render(s.Items),
		Required:      s.Required,
		GVK:           s.GVK,
		ListType:      s.ListType,
		ListMapKeys:   s.ListMapKeys,
		MapType:       s.MapType,
		PatchStrategy: s.PatchStrategy,
		PatchMergeKey: s.PatchMergeKey,
	}
	w.AdditionalProperties = f.render(s.AdditionalProperties)
	if len(s.Properties) > 0 {
		w.Properties = make(map[string]*wireSchema, len(s.Properties))
		for k, p := range s.Properties {
			w.Properties[k] = f.render(p)
		}
	}
	if s.Ref != "" {
		if f.v3 && s.hasSiblings() {
			w.AllOf = []*wireSchema{f.ref(s.Ref)}
		} else {
			w.Ref = f.refPrefix + s.Ref
		}
	}
	if f.v3 {
		w.IntOrString = s.IntOrString
		if len(s.OneOf) > 0 {
			w.Type = ""
			for _, t := range s.OneOf {
				w.OneOf = append(w.OneOf, &wireSchema{Type: t})
			}
		}
	}
	return w
}

// The security scheme kube-apiserver declares; clients ignore it, some
// OpenAPI tooling expects it.
type securityScheme struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Name        string `json:"name"`
	In          string `json:"in"`
}

var (
	bearerToken = map[string]securityScheme{"BearerToken": {
		Type: "apiKey", Description: "Bearer Token authentication", Name: "authorization", In: "header",
	}}
	bearerSecurity = []map[string][]string{{"BearerToken": {}}}
)

type wireInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// writeObject writes a JSON object of already serialized members, in key
// order so that a document and its hash are the same on every build.
func writeObject(b *bytes.Buffer, members map[string][]byte) {
	keys := slices.Sorted(maps.Keys(members))
	size := 2
	for k, v := range members {
		size += len(k) + len(v) + 4
	}
	b.Grow(size)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		appendJSONString(b, k)
		b.WriteByte(':')
		b.Write(members[k])
	}
	b.WriteByte('}')
}

func appendJSONString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a string always marshals
	b.Write(out)
}

// serializeDefinitions renders and marshals every definition once in
// flavour f; the documents share the bytes.
func serializeDefinitions(defs map[string]*node, f flavour) (map[string][]byte, error) {
	out := make(map[string][]byte, len(defs))
	for name, def := range defs {
		raw, err := json.Marshal(f.render(def))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBuild, name, err)
		}
		out[name] = raw
	}
	return out, nil
}
