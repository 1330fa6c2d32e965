package openapi

import "encoding/json"

// node is the flavour-neutral model of one JSON schema node. A reference
// holds only the definition name; v2.go and v3.go decide how it is written.
type node struct {
	Ref         string // definition name, without any "#/..." prefix
	Description string
	Type        string
	Format      string
	// Default is the JSON of the zero value that openapi-gen publishes for
	// non-pointer fields; nil when there is none.
	Default              json.RawMessage
	Items                *node
	AdditionalProperties *node
	Properties           map[string]*node
	Required             []string
	// OneOf lists the primitive types of a value that has several JSON forms
	// (Quantity, IntOrString). Only v3 can say so; v2 keeps Type.
	OneOf       []string
	IntOrString bool

	GVK           []gvk
	ListType      string
	ListMapKeys   []string
	MapType       string
	PatchStrategy string
	PatchMergeKey string
}

// gvk is the value of x-kubernetes-group-version-kind. The field set and the
// JSON names matter: kubectl explain compares these maps for deep equality.
type gvk struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// hasSiblings reports whether a reference node carries anything besides the
// reference, which OpenAPI v3 can only express by wrapping it in allOf.
func (s *node) hasSiblings() bool {
	return s.Description != "" || s.Default != nil || s.ListType != "" ||
		s.MapType != "" || s.PatchStrategy != "" || s.PatchMergeKey != ""
}

// refs calls fn for every definition name that s refers to, directly or in
// nested schemas.
func (s *node) refs(fn func(string)) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		fn(s.Ref)
	}
	s.Items.refs(fn)
	s.AdditionalProperties.refs(fn)
	for _, p := range s.Properties {
		p.refs(fn)
	}
}

var (
	defaultObject = json.RawMessage(`{}`)
	defaultString = json.RawMessage(`""`)
	defaultNumber = json.RawMessage(`0`)
	defaultBool   = json.RawMessage(`false`)
)
