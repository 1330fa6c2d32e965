package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

type v2Operation struct {
	Description string                `json:"description"`
	Consumes    []string              `json:"consumes"`
	Produces    []string              `json:"produces"`
	Schemes     []string              `json:"schemes"`
	Tags        []string              `json:"tags"`
	OperationID string                `json:"operationId"`
	Parameters  []v2Parameter         `json:"parameters,omitempty"`
	Responses   map[string]v2Response `json:"responses"`
	Action      string                `json:"x-kubernetes-action,omitempty"`
	GVK         *gvk                  `json:"x-kubernetes-group-version-kind,omitempty"`
}

type v2Parameter struct {
	UniqueItems bool        `json:"uniqueItems,omitempty"`
	Type        string      `json:"type,omitempty"`
	Description string      `json:"description,omitempty"`
	Name        string      `json:"name"`
	In          string      `json:"in"`
	Required    bool        `json:"required,omitempty"`
	Schema      *wireSchema `json:"schema,omitempty"`
}

type v2Response struct {
	Description string      `json:"description"`
	Schema      *wireSchema `json:"schema,omitempty"`
}

var anyMediaType = []string{"*/*"}

// renderV2 serializes the whole model as one Swagger 2.0 document, from
// the definitions already serialized in defs.
func (d *Documents) renderV2(defs map[string][]byte) ([]byte, error) {
	head, err := json.Marshal(struct {
		Swagger             string                    `json:"swagger"`
		Info                wireInfo                  `json:"info"`
		SecurityDefinitions map[string]securityScheme `json:"securityDefinitions"`
		Security            []map[string][]string     `json:"security"`
	}{"2.0", wireInfo(d.info), bearerToken, bearerSecurity})
	if err != nil {
		return nil, fmt.Errorf("%w: v2: %w", ErrBuild, err)
	}
	paths, used, err := v2Writer.paths(d, nil, defs)
	if err != nil {
		return nil, fmt.Errorf("v2: %w", err)
	}
	var b bytes.Buffer
	b.Grow(len(paths)*4096 + len(used)*4096)
	b.Write(head[:len(head)-1])
	b.WriteString(`,"paths":`)
	writeObject(&b, paths)
	b.WriteString(`,"definitions":`)
	writeObject(&b, used)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// v2Writer renders operations and parameters in Swagger 2.0 form.
var v2Writer = flavourWriter[v2Operation, v2Parameter]{operation: v2Op, param: v2Param}

func v2Op(op *operation) *v2Operation {
	o := &v2Operation{
		Description: op.Description,
		Consumes:    op.Consumes,
		Produces:    op.Produces,
		Schemes:     []string{"https"},
		Tags:        []string{op.Tag},
		OperationID: op.ID,
		Parameters:  mapParams(op.Params, v2Param),
		Responses:   map[string]v2Response{},
		Action:      op.Action,
		GVK:         op.GVK,
	}
	if o.Consumes == nil {
		o.Consumes = anyMediaType
	}
	if op.Body != "" {
		body := v2Parameter{Name: "body", In: "body", Required: true, Schema: v2Flavour.ref(op.Body)}
		o.Parameters = append([]v2Parameter{body}, o.Parameters...)
	}
	for _, r := range op.Responses {
		resp := v2Response{Description: r.Description}
		if r.Ref != "" {
			resp.Schema = v2Flavour.ref(r.Ref)
		}
		o.Responses[r.Code] = resp
	}
	return o
}

func v2Param(p param) v2Parameter {
	return v2Parameter{
		UniqueItems: true, Type: p.Type, Description: p.Description,
		Name: p.Name, In: p.In, Required: p.Required,
	}
}

// pathRefs returns the definitions that the operations of the paths keep
// refer to directly; keep nil means every path.
func (d *Documents) pathRefs(keep func(*pathItem) bool) []string {
	var refs []string
	for _, item := range d.paths {
		if keep != nil && !keep(item) {
			continue
		}
		for _, op := range item.Ops {
			if op.Body != "" {
				refs = append(refs, op.Body)
			}
			for _, r := range op.Responses {
				if r.Ref != "" {
					refs = append(refs, r.Ref)
				}
			}
		}
	}
	return refs
}

// closure returns the definitions reachable from roots.
func closure(defs map[string]*node, roots []string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		s := defs[name]
		s.refs(visit)
	}
	for _, r := range roots {
		visit(r)
	}
	return seen
}
