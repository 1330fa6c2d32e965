package openapi

import (
	"encoding/json"
	"fmt"
)

// wirePath is one path of a rendered document, in either version: O and P
// are the version's operation and parameter types.
type wirePath[O, P any] struct {
	Get        *O  `json:"get,omitempty"`
	Put        *O  `json:"put,omitempty"`
	Post       *O  `json:"post,omitempty"`
	Delete     *O  `json:"delete,omitempty"`
	Patch      *O  `json:"patch,omitempty"`
	Parameters []P `json:"parameters,omitempty"`
}

// flavourWriter renders the model's operations and parameters in one
// document version.
type flavourWriter[O, P any] struct {
	operation func(op *operation) *O
	param     func(p param) P
}

// path renders one path item.
func (f flavourWriter[O, P]) path(item *pathItem) *wirePath[O, P] {
	w := &wirePath[O, P]{Parameters: mapParams(item.Params, f.param)}
	for i := range item.Ops {
		op := &item.Ops[i]
		o := f.operation(op)
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

// mapParams renders parameters with f; none gives nil, so that the field
// is left out.
func mapParams[P any](ps []param, f func(param) P) []P {
	if len(ps) == 0 {
		return nil
	}
	out := make([]P, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out
}

// paths serializes the items keep selects (nil: all), by path.
func (f flavourWriter[O, P]) paths(items map[string]*pathItem, keep func(*pathItem) bool) (map[string][]byte, error) {
	out := map[string][]byte{}
	for path, item := range items {
		if keep != nil && !keep(item) {
			continue
		}
		var err error
		if out[path], err = json.Marshal(f.path(item)); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBuild, path, err)
		}
	}
	return out, nil
}
