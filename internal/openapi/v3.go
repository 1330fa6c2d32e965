package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

type v3PathItem struct {
	Get        *v3Operation  `json:"get,omitempty"`
	Put        *v3Operation  `json:"put,omitempty"`
	Post       *v3Operation  `json:"post,omitempty"`
	Delete     *v3Operation  `json:"delete,omitempty"`
	Patch      *v3Operation  `json:"patch,omitempty"`
	Parameters []v3Parameter `json:"parameters,omitempty"`
}

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
	inGV := func(p *pathItem) bool { return p.GV == gv }
	paths := map[string][]byte{}
	for path, item := range d.paths {
		if !inGV(item) {
			continue
		}
		if paths[path], err = json.Marshal(v3Path(item)); err != nil {
			return nil, fmt.Errorf("%w: v3 %s: %w", ErrBuild, path, err)
		}
	}
	used := map[string][]byte{}
	for name := range closure(d.defs, d.pathRefs(inGV)) {
		used[name] = defs[name]
	}
	var b bytes.Buffer
	b.Grow(len(paths)*4096 + len(used)*4096)
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

func v3Path(item *pathItem) *v3PathItem {
	w := &v3PathItem{Parameters: v3Params(item.Params)}
	for _, op := range item.Ops {
		o := &v3Operation{
			Tags:        []string{op.Tag},
			Description: op.Description,
			OperationID: op.ID,
			Parameters:  v3Params(op.Params),
			Responses:   map[string]v3Response{},
			Action:      op.Action,
			GVK:         op.GVK,
		}
		if op.Body != "" {
			consumes := op.Consumes
			if consumes == nil {
				consumes = anyMediaType
			}
			o.RequestBody = &v3RequestBody{Content: content(consumes, op.Body), Required: true}
		}
		for _, r := range op.Responses {
			resp := v3Response{Description: r.Description}
			if r.Ref != "" {
				resp.Content = content(op.Produces, r.Ref)
			}
			o.Responses[r.Code] = resp
		}
		switch op.Method {
		case "get":
			w.Get = o
		case "put":
			w.Put = o
		case "post":
			w.Post = o
		case "delete":
			w.Delete = o
		case "patch":
			w.Patch = o
		}
	}
	return w
}

func content(mediaTypes []string, ref string) map[string]v3MediaType {
	c := make(map[string]v3MediaType, len(mediaTypes))
	for _, m := range mediaTypes {
		c[m] = v3MediaType{Schema: v3Flavour.ref(ref)}
	}
	return c
}

func v3Params(ps []param) []v3Parameter {
	if len(ps) == 0 {
		return nil
	}
	out := make([]v3Parameter, len(ps))
	for i, p := range ps {
		out[i] = v3Parameter{
			Name: p.Name, In: p.In, Description: p.Description, Required: p.Required,
			Schema: &wireSchema{Type: p.Type, UniqueItems: true},
		}
	}
	return out
}
