package validation

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/util/diff"
)

// specDiff is the diff kube-apiserver appends when it refuses a change to
// an immutable spec: a unified diff of the two specs as JSON. It renders
// its internal types, which carry no JSON names, so the keys are the Go
// field names and every field is present; the versioned types have the
// same fields in the same order, so they are rendered the same way here.
func specDiff(old, cur any) string {
	return diff.Diff(json.RawMessage(goJSON(reflect.ValueOf(old))), json.RawMessage(goJSON(reflect.ValueOf(cur))))
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// goJSON encodes v as encoding/json encodes a struct without tags.
func goJSON(v reflect.Value) []byte {
	var b bytes.Buffer
	writeGoJSON(&b, v)
	return b.Bytes()
}

func writeGoJSON(b *bytes.Buffer, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("null")
		return
	}
	if v.Type().Implements(marshalerType) || (v.CanAddr() && v.Addr().Type().Implements(marshalerType)) || reflect.PointerTo(v.Type()).Implements(marshalerType) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			b.WriteString("null")
			return
		}
		if data, err := json.Marshal(v.Interface()); err == nil {
			b.Write(data)
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		writeGoJSON(b, v.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		writeFields(b, v, &first)
		b.WriteByte('}')
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b.WriteString(strconv.Quote(base64.StdEncoding.EncodeToString(v.Bytes())))
			return
		}
		fallthrough
	case reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			writeGoJSON(b, v.Index(i))
		}
		b.WriteByte(']')
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k.String())
			b.Write(key)
			b.WriteByte(':')
			writeGoJSON(b, v.MapIndex(k))
		}
		b.WriteByte('}')
	default:
		data, err := json.Marshal(v.Interface())
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(data)
	}
}

// writeFields writes a struct's exported fields, promoting those of
// embedded structs as encoding/json does.
func writeFields(b *bytes.Buffer, v reflect.Value, first *bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			writeFields(b, v.Field(i), first)
			continue
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		b.WriteByte(':')
		writeGoJSON(b, v.Field(i))
	}
}
