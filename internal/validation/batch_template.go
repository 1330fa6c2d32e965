package validation

import (
	"bytes"
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// internalTemplate renders a pod template as kube-apiserver quotes it in
// "field is immutable": its internal type's JSON, where the core types
// have no json tags (Go field names, every field, nil as null) and the
// template's metadata and embedded structs (a volume's source) are inlined.
type internalTemplate struct{ t *corev1.PodTemplateSpec }

func (v internalTemplate) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	meta, err := json.Marshal(v.t.ObjectMeta)
	if err != nil {
		return nil, err
	}
	buf.Write(meta[:len(meta)-1])
	if len(meta) > 2 {
		buf.WriteByte(',')
	}
	buf.WriteString(`"Spec":`)
	if err := writeInternal(&buf, reflect.ValueOf(v.t.Spec)); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

const corePkg = "k8s.io/api/core/v1"

func writeInternal(buf *bytes.Buffer, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		return writeInternal(buf, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		buf.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeInternal(buf, v.Index(i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case reflect.Struct:
		if v.Type().PkgPath() != corePkg {
			break
		}
		buf.WriteByte('{')
		first := true
		if err := writeInternalFields(buf, v, &first); err != nil {
			return err
		}
		buf.WriteByte('}')
		return nil
	}
	if v.Kind() == reflect.Map && v.IsNil() {
		buf.WriteString("null")
		return nil
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}

func writeInternalFields(buf *bytes.Buffer, v reflect.Value, first *bool) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			if err := writeInternalFields(buf, v.Field(i), first); err != nil {
				return err
			}
			continue
		}
		if !*first {
			buf.WriteByte(',')
		}
		*first = false
		buf.WriteString(`"` + f.Name + `":`)
		if err := writeInternal(buf, v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}
