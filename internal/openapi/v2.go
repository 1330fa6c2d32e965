package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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
// the built-in paths and definitions already serialized in base and the
// custom resources of set. As kube-apiserver merges custom resources into
// its document, a built-in path wins over a custom one, and a custom
// definition reaches the document only through a custom path that does.
func (d *Documents) renderV2(base *base, set *customSet) ([]byte, error) {
	head, err := json.Marshal(struct {
		Swagger             string                    `json:"swagger"`
		Info                wireInfo                  `json:"info"`
		SecurityDefinitions map[string]securityScheme `json:"securityDefinitions"`
		Security            []map[string][]string     `json:"security"`
	}{"2.0", wireInfo(d.info), bearerToken, bearerSecurity})
	if err != nil {
		return nil, fmt.Errorf("%w: v2: %w", ErrBuild, err)
	}
	paths := maps.Clone(base.v2Paths)
	var roots []string
	for _, cr := range set.all {
		for _, p := range cr.paths {
			if _, builtin := base.v2Paths[p.path]; builtin {
				continue
			}
			paths[p.path] = p.v2
			roots = append(roots, p.v2Refs...)
		}
	}
	used := make(map[string][]byte, len(base.v2Used)+len(set.v2Defs))
	for _, name := range base.v2Used {
		used[name] = base.v2Defs[name]
	}
	for name := range d.reach(roots, set.v2Defs) {
		if c, ok := set.v2Defs[name]; ok {
			used[name] = c.body
		} else {
			used[name] = base.v2Defs[name]
		}
	}
	var b bytes.Buffer
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
		body := v2Parameter{Name: "body", In: "body", Required: !op.BodyOptional, Schema: v2Flavour.ref(op.Body)}
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

// pathRefs returns the definitions that the operations of the items keep
// selects refer to directly; keep nil means every item.
func pathRefs(items map[string]*pathItem, keep func(*pathItem) bool) []string {
	var refs []string
	for _, item := range items {
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

// pathRefs returns the definitions that the built-in operations of the
// paths keep selects refer to directly.
func (d *Documents) pathRefs(keep func(*pathItem) bool) []string {
	return pathRefs(d.paths, keep)
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
