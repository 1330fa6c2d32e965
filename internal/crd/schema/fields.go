package schema

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
)

// selectableField is one of spec.versions[].selectableFields: its field
// label (the JSONPath without its leading dot) and the parsed path.
type selectableField struct {
	label string
	path  *pathPool
	err   error
}

func newSelectableFields(in []apiextensionsv1.SelectableField) []selectableField {
	out := make([]selectableField, len(in))
	for i, sf := range in {
		out[i].label = strings.TrimPrefix(sf.JSONPath, ".")
		out[i].path, out[i].err = newPathPool("selectableField", sf.JSONPath)
	}
	return out
}

// Fields are the field labels of obj that field selectors match, as
// kube-apiserver's custom resource strategy computes them:
// metadata.name, metadata.namespace (namespaced kinds only) and each of
// the version's selectableFields (CustomResourceFieldSelectors is GA and
// on in 1.37), labelled by its JSONPath without the leading dot
// ("spec.color") and valued as fmt.Sprint prints the JSON value ("3",
// "true", "blue"). A field that is absent or null gives "", so
// "spec.color=" selects the objects without a color (and "spec.color!=x"
// includes them).
//
// An error (ErrSelectableField) means a path that does not parse or that
// matches more than one value, which CRD validation prevents;
// kube-apiserver then fails the list or watch with an internal error.
func (v *Version) Fields(obj *unstructured.Unstructured) (fields.Set, error) {
	set := fields.Set{"metadata.name": obj.GetName()}
	if v.namespaced {
		set["metadata.namespace"] = obj.GetNamespace()
	}
	for _, sf := range v.selectable {
		if sf.err != nil {
			return nil, fmt.Errorf("%w: unexpected error parsing jsonPath: %w", ErrSelectableField, sf.err)
		}
		value, err := sf.value(obj.Object)
		if err != nil {
			return nil, err
		}
		set[sf.label] = value
	}
	return set, nil
}

func (sf selectableField) value(obj map[string]any) (string, error) {
	path := sf.path.get()
	defer sf.path.put(path)
	results, err := path.FindResults(obj)
	if err != nil {
		return "", fmt.Errorf("%w: unexpected error finding value with jsonPath: %w", ErrSelectableField, err)
	}
	if len(results) == 0 || len(results[0]) == 0 {
		return "", nil
	}
	if len(results) > 1 || len(results[0]) > 1 {
		return "", fmt.Errorf("%w: unexpectedly received more than one JSON path result", ErrSelectableField)
	}
	value := results[0][0].Interface()
	if value == nil {
		return "", nil
	}
	return fmt.Sprint(value), nil
}

// ConvertFieldLabel accepts the field labels that Fields provides and
// rejects others with kube-apiserver's error ("field label not
// supported: spec.size", ErrFieldLabel), which it answers with 400 Bad
// Request. Labels and values are returned unchanged.
func (v *Version) ConvertFieldLabel(label, value string) (string, string, error) {
	switch {
	case label == "metadata.name", v.namespaced && label == "metadata.namespace":
		return label, value, nil
	}
	for _, sf := range v.selectable {
		if sf.label == label {
			return label, value, nil
		}
	}
	return "", "", fmt.Errorf("%w: %s", ErrFieldLabel, label)
}
