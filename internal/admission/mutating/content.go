package mutating

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
)

// Mutation expressions return CEL values: Object{...} apply
// configurations and JSONPatch values whose value may be anything. Both
// are turned into JSON-compatible Go values here (maps with string keys,
// []any, string, bool, int64, float64, nil), which is what the
// structured-merge-diff and JSON patch libraries take. Integers stay
// integers; bytes, timestamps and durations take CEL's JSON forms.

// maxValueDepth bounds the nesting of a converted value. CEL's parser
// already limits the nesting of literals; this guards against anything
// that slips past it.
const maxValueDepth = 1000

// jsonValueType is CEL's JSON conversion target.
var jsonValueType = reflect.TypeFor[*structpb.Value]()

// applyConfiguration returns the content of an ApplyConfiguration
// expression's result, an Object value, with kube-apiserver's error texts.
func applyConfiguration(v ref.Val) (map[string]any, error) {
	obj, ok := v.(*dynamic.ObjectVal)
	if !ok {
		return nil, fmt.Errorf("unsupported return type from ApplyConfiguration expression: %v", v.Type())
	}
	// Object initializers are not checked against the object's schema:
	// at least their type names must follow their field paths, so that
	// Object.spec{selector: Object.spec.wrong{}} is refused.
	if err := obj.CheckTypeNamesMatchFieldPathNames(); err != nil {
		return nil, fmt.Errorf("type mismatch: %w", err)
	}
	out, err := toJSONValue(obj, 0)
	if err != nil {
		return nil, fmt.Errorf("invalid apply configuration: %w", err)
	}
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("invalid return type: %T", out)
	}
	return m, nil
}

// toJSONValue converts a CEL value.
func toJSONValue(v ref.Val, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, errTooDeep
	}
	switch t := v.(type) {
	case nil, types.Null:
		return nil, nil
	case *types.Err:
		return nil, t
	case *dynamic.ObjectVal:
		// Value converts the fields, leaving CEL natives in places; those
		// are converted below.
		native := t.Value()
		if err, ok := native.(error); ok {
			return nil, err
		}
		return toJSONNative(native, depth+1)
	case types.Bool:
		return bool(t), nil
	case types.String:
		return string(t), nil
	case types.Int:
		return int64(t), nil
	case types.Uint:
		return uintValue(uint64(t))
	case types.Double:
		return floatValue(float64(t))
	case types.Bytes, types.Timestamp, types.Duration:
		return viaJSON(v)
	case *mutation.JSONPatchVal:
		return nil, errJSONPatchValue
	case traits.Lister:
		return listValue(t, depth)
	case traits.Mapper:
		return mapValue(t, depth)
	}
	if out, err := viaJSON(v); err == nil {
		return out, nil
	}
	return toJSONNative(v.Value(), depth+1)
}

func listValue(l traits.Lister, depth int) (any, error) {
	out := []any{}
	for it := l.Iterator(); it.HasNext() == types.True; {
		e, err := toJSONValue(it.Next(), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func mapValue(m traits.Mapper, depth int) (any, error) {
	out := map[string]any{}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		key, ok := k.Value().(string)
		if !ok {
			return nil, fmt.Errorf("map key %v is of type %v, not string", k, k.Type())
		}
		e, err := toJSONValue(m.Get(k), depth+1)
		if err != nil {
			return nil, err
		}
		out[key] = e
	}
	return out, nil
}

// viaJSON converts a value by CEL's JSON conversion.
func viaJSON(v ref.Val) (any, error) {
	native, err := v.ConvertToNative(jsonValueType)
	if err != nil {
		return nil, err
	}
	pv, ok := native.(*structpb.Value)
	if !ok {
		return nil, fmt.Errorf("unexpected JSON conversion of %v to %T", v.Type(), native)
	}
	return pv.AsInterface(), nil
}

func uintValue(u uint64) (any, error) {
	if u > math.MaxInt64 {
		return nil, fmt.Errorf("integer %d out of range", u)
	}
	return int64(u), nil
}

func floatValue(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("number %v cannot be represented in JSON", f)
	}
	return f, nil
}

// toJSONNative converts what CEL values give as their native values.
func toJSONNative(v any, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, errTooDeep
	}
	switch t := v.(type) {
	case nil:
		return nil, nil
	case ref.Val:
		return toJSONValue(t, depth)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := toJSONNative(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := toJSONNative(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case []ref.Val:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := toJSONValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[ref.Val]ref.Val:
		out := make(map[string]any, len(t))
		for k, e := range t {
			key, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %v is of type %v, not string", k, k.Type())
			}
			c, err := toJSONValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[key] = c
		}
		return out, nil
	case string, bool, int64:
		return t, nil
	case int:
		return int64(t), nil
	case int32:
		return int64(t), nil
	case uint64:
		return uintValue(t)
	case uint32:
		return int64(t), nil
	case float64:
		return floatValue(t)
	case float32:
		return floatValue(float64(t))
	case []byte:
		return base64.StdEncoding.EncodeToString(t), nil
	case time.Time:
		return viaJSON(types.Timestamp{Time: t})
	case time.Duration:
		return viaJSON(types.Duration{Duration: t})
	case structpb.NullValue:
		return nil, nil
	case *structpb.Value:
		return t.AsInterface(), nil
	}
	// Go values of typed objects (params, namespaceObject) convert as
	// they serialize.
	return viaEncodingJSON(v)
}

// viaEncodingJSON converts a Go value through its JSON encoding, keeping
// integers integers.
func viaEncodingJSON(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("unsupported value of type %T: %w", v, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("unsupported value of type %T: %w", v, err)
	}
	return numbers(out), nil
}

// numbers replaces json.Numbers with int64 or float64.
func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	}
	return v
}
