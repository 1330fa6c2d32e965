package audit

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// toJSON returns body as JSON: itself if it is JSON, converted if it is a
// YAML object or list (server-side apply patches), nil otherwise (protobuf
// and other bodies cannot be embedded in a JSON event).
func toJSON(body []byte) []byte {
	if json.Valid(body) {
		return body
	}
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil
	}
	if t := bytes.TrimSpace(js); len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return nil
	}
	return js
}

// objectMeta is the part of a request object that names it.
type objectMeta struct {
	Metadata struct {
		Name            string    `json:"name"`
		Namespace       string    `json:"namespace"`
		UID             types.UID `json:"uid"`
		ResourceVersion string    `json:"resourceVersion"`
	} `json:"metadata"`
}

// fillObjectRef completes objectRef from the body's metadata, never
// overriding what the URL said. Called with r.mu held.
func (r *Recorder) fillObjectRef(js []byte) {
	ref := r.event.ObjectRef
	if ref == nil || (ref.Name != "" && ref.Namespace != "" && ref.UID != "" && ref.ResourceVersion != "") {
		return
	}
	var m objectMeta
	if json.Unmarshal(js, &m) != nil {
		return // a JSON patch (a list) or not an object: nothing to learn
	}
	md := &m.Metadata
	if ref.Namespace == "" {
		ref.Namespace = md.Namespace
	}
	if ref.Name == "" {
		ref.Name = md.Name
	}
	if ref.UID == "" {
		ref.UID = md.UID
	}
	if ref.ResourceVersion == "" {
		ref.ResourceVersion = md.ResourceVersion
	}
}

// withoutManagedFields drops metadata.managedFields from an object, from
// every item of a list and from every row object of a Table. The keys of
// the edited objects come out sorted; a body that cannot be parsed is
// returned unchanged.
func withoutManagedFields(js []byte) []byte {
	out, _ := stripManagedFields(js)
	return out
}

// stripManagedFields returns the edited body and whether anything changed.
func stripManagedFields(js []byte) ([]byte, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(js, &top) != nil {
		return js, false
	}
	changed := false
	if md, ok := top["metadata"]; ok {
		if edited, ok := dropKey(md, "managedFields"); ok {
			top["metadata"] = edited
			changed = true
		}
	}
	if items, ok := top["items"]; ok {
		if edited, ok := editList(items, stripManagedFields); ok {
			top["items"] = edited
			changed = true
		}
	}
	if rows, ok := top["rows"]; ok && isTable(top["kind"]) {
		if edited, ok := editList(rows, stripRowObject); ok {
			top["rows"] = edited
			changed = true
		}
	}
	if !changed {
		return js, false
	}
	out, err := json.Marshal(top)
	if err != nil {
		return js, false
	}
	return out, true
}

func isTable(kind json.RawMessage) bool {
	var k string
	return json.Unmarshal(kind, &k) == nil && k == "Table"
}

// stripRowObject strips managed fields from a Table row's object.
func stripRowObject(js []byte) ([]byte, bool) {
	var row map[string]json.RawMessage
	if json.Unmarshal(js, &row) != nil {
		return js, false
	}
	obj, ok := row["object"]
	if !ok {
		return js, false
	}
	edited, ok := stripManagedFields(obj)
	if !ok {
		return js, false
	}
	row["object"] = edited
	out, err := json.Marshal(row)
	if err != nil {
		return js, false
	}
	return out, true
}

// editList applies edit to each element of a JSON list.
func editList(js []byte, edit func([]byte) ([]byte, bool)) ([]byte, bool) {
	var list []json.RawMessage
	if json.Unmarshal(js, &list) != nil {
		return js, false
	}
	changed := false
	for i, el := range list {
		if edited, ok := edit(el); ok {
			list[i] = edited
			changed = true
		}
	}
	if !changed {
		return js, false
	}
	out, err := json.Marshal(list)
	if err != nil {
		return js, false
	}
	return out, true
}

// dropKey removes key from a JSON object.
func dropKey(js []byte, key string) ([]byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(js, &obj) != nil {
		return js, false
	}
	if _, ok := obj[key]; !ok {
		return js, false
	}
	delete(obj, key)
	out, err := json.Marshal(obj)
	if err != nil {
		return js, false
	}
	return out, true
}
