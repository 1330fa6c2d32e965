package mutating

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// maxPatchedSize bounds the JSON document a patch may produce: copy
// operations can double it each, and the list of operations is bounded
// only by the CEL cost limit.
const maxPatchedSize = celbase.MaxRequestSizeBytes

var jsonPatchValType = reflect.TypeFor[*mutation.JSONPatchVal]()

// jsonPatchOps converts a JSONPatch expression's result, a list of
// JSONPatch values, with kube-apiserver's error texts.
func jsonPatchOps(v ref.Val) (jsonpatch.Patch, error) {
	list, ok := v.(traits.Lister)
	if !ok {
		return nil, errors.New("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	out := jsonpatch.Patch{}
	for it := list.Iterator(); it.HasNext() == types.True; {
		native, err := it.Next().ConvertToNative(jsonPatchValType)
		if err != nil {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: %w", err)
		}
		p, ok := native.(*mutation.JSONPatchVal)
		if !ok {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of %T", native)
		}
		op, err := operation(p)
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, nil
}

func operation(p *mutation.JSONPatchVal) (jsonpatch.Operation, error) {
	op := jsonpatch.Operation{"op": jsonString(p.Op), "path": jsonString(p.Path)}
	if p.From != "" {
		op["from"] = jsonString(p.From)
	}
	if p.Val != nil {
		if obj, ok := p.Val.(*dynamic.ObjectVal); ok {
			if err := obj.CheckTypeNamesMatchFieldPathNames(); err != nil {
				return nil, fmt.Errorf("type mismatch: %w", err)
			}
		}
		v, err := toJSONValue(p.Val, 0)
		if err != nil {
			return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
		}
		raw := json.RawMessage(data)
		op["value"] = &raw
	}
	return op, nil
}

// jsonString encodes s as a JSON string (any string encodes).
func jsonString(s string) *json.RawMessage {
	data, _ := json.Marshal(s)
	raw := json.RawMessage(data)
	return &raw
}

// errTestFailed marks a patch whose test operation failed: kube-apiserver
// then leaves the object as it was, without an error.
var errTestFailed = jsonpatch.ErrTestFailed

// applyJSONPatch applies p to doc one operation at a time, so that no
// operation may grow the document past maxPatchedSize. A failed test
// operation returns an error wrapping errTestFailed.
func applyJSONPatch(p jsonpatch.Patch, doc []byte) ([]byte, error) {
	for i := range p {
		out, err := jsonpatch.Patch{p[i]}.Apply(doc)
		if err != nil {
			return nil, err
		}
		if int64(len(out)) > maxPatchedSize {
			return nil, fmt.Errorf("%w: the patched object is larger than %d bytes", ErrPatchTooLarge, maxPatchedSize)
		}
		doc = out
	}
	return doc, nil
}
