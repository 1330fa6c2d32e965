package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

type v3Operation struct {
	Tags        []string              `json:"tags"`
	Description string                `json:"description"`
	OperationID string                `json:"operationId"`
	Parameters  []v3Parameter         `json:"parameters,omitempty"`
	RequestBody *v3RequestBody        `json:"requestBody,omitempty"`
	Responses   map[string]v3Response `json:"responses"`
	Action      string                `json:"x-kubernetes-action,omitempty"`
	GVK         *gvk                  `json:"x-kubernetes-group-version-kind,omitempty"`
}

type v3Parameter struct {
	Name        string      `json:"name"`
	In          string      `json:"in"`
	Description string      `json:"description,omitempty"`
	Required    bool        `json:"required,omitempty"`
	Schema      *wireSchema `json:"schema"`
}

type v3RequestBody struct {
	Content  map[string]v3MediaType `json:"content"`
	Required bool                   `json:"required,omitempty"`
}

type v3MediaType struct {
	Schema *wireSchema `json:"schema"`
}

type v3Response struct {
	Description string                 `json:"description"`
	Content     map[string]v3MediaType `json:"content,omitempty"`
}

// renderV3 serializes the document of one group-version: its paths and
// every definition they reach, from the definitions already serialized in
// defs.
func (d *Documents) renderV3(gv schema.GroupVersion, defs map[string][]byte) ([]byte, error) {
	head, err := json.Marshal(struct {
		OpenAPI  string                `json:"openapi"`
		Info     wireInfo              `json:"info"`
		Security []map[string][]string `json:"security"`
	}{"3.0.0", wireInfo(d.info), bearerSecurity})
	if err != nil {
		return nil, fmt.Errorf("%w: v3: %w", ErrBuild, err)
	}
	security, err := json.Marshal(bearerToken)
	if err != nil {
		return nil, fmt.Errorf("%w: v3: %w", ErrBuild, err)
	}
	keep := func(p *pathItem) bool { return p.GV == gv }
	paths, err := v3Writer.paths(d.paths, keep)
	if err != nil {
		return nil, fmt.Errorf("v3: %w", err)
	}
	used := map[string][]byte{}
	for name := range closure(d.defs, d.pathRefs(keep)) {
		used[name] = defs[name]
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"paths":`)
	writeObject(&b, paths)
	b.WriteString(`,"components":{"schemas":`)
	writeObject(&b, used)
	b.WriteString(`,"securitySchemes":`)
	b.Write(security)
	b.WriteString(`}}`)
	return b.Bytes(), nil
}

// v3Writer renders operations and parameters in OpenAPI 3.0 form.
var v3Writer = flavourWriter[v3Operation, v3Parameter]{operation: v3Op, param: v3Param}

func v3Op(op *operation) *v3Operation {
	o := &v3Operation{
		Tags:        []string{op.Tag},
		Description: op.Description,
		OperationID: op.ID,
		Parameters:  mapParams(op.Params, v3Param),
		Responses:   map[string]v3Response{},
		Action:      op.Action,
		GVK:         op.GVK,
	}
	if op.Body != "" {
		consumes := op.Consumes
		if consumes == nil {
			consumes = anyMediaType
		}
		o.RequestBody = &v3RequestBody{Content: content(consumes, op.Body), Required: !op.BodyOptional}
	}
	for _, r := range op.Responses {
		resp := v3Response{Description: r.Description}
		if r.Ref != "" {
			resp.Content = content(op.Produces, r.Ref)
		}
		o.Responses[r.Code] = resp
	}
	return o
}

func content(mediaTypes []string, ref string) map[string]v3MediaType {
	c := make(map[string]v3MediaType, len(mediaTypes))
	for _, m := range mediaTypes {
		c[m] = v3MediaType{Schema: v3Flavour.ref(ref)}
	}
	return c
}

func v3Param(p param) v3Parameter {
	return v3Parameter{
		Name: p.Name, In: p.In, Description: p.Description, Required: p.Required,
		Schema: &wireSchema{Type: p.Type, UniqueItems: true},
	}
}
