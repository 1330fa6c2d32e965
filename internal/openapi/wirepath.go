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

// paths serializes the paths keep selects (nil: all) and picks, from the
// definitions already serialized in defs, every one they reach.
func (f flavourWriter[O, P]) paths(d *Documents, keep func(*pathItem) bool, defs map[string][]byte) (paths, used map[string][]byte, err error) {
	paths = map[string][]byte{}
	for path, item := range d.paths {
		if keep != nil && !keep(item) {
			continue
		}
		if paths[path], err = json.Marshal(f.path(item)); err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %w", ErrBuild, path, err)
		}
	}
	used = map[string][]byte{}
	for name := range closure(d.defs, d.pathRefs(keep)) {
		used[name] = defs[name]
	}
	return paths, used, nil
}
