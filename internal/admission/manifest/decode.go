package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// maxListDepth bounds v1.List nesting so hostile input cannot recurse deeply.
const maxListDepth = 4

// decoded is one object taken from a document, with where it came from.
type decoded struct {
	doc  int
	item string
	kind string
	obj  runtime.Object
}

// decodeFile splits a file into documents and decodes each one strictly.
// Empty documents, including ones holding only comments, are skipped and
// not counted.
func decodeFile(plugin Kind, path string, data []byte) ([]decoded, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []decoded
	doc := 0
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, &LoadError{File: path, Doc: doc + 1, Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, &LoadError{File: path, Doc: doc + 1, Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
		}
		if isNull(js) {
			continue
		}
		doc++
		// The lenient conversion merges duplicate keys; the strict one is
		// run only to refuse them.
		if _, err := yaml.YAMLToJSONStrict(raw); err != nil {
			return nil, &LoadError{File: path, Doc: doc, Err: fmt.Errorf("%w: %w", ErrStrictDecoding, err)}
		}
		objs, err := decodeJSON(plugin, js, "", 0)
		if err != nil {
			var le *LoadError
			if errors.As(err, &le) {
				le.File, le.Doc = path, doc
			}
			return nil, err
		}
		for i := range objs {
			objs[i].doc = doc
		}
		out = append(out, objs...)
	}
}

func isNull(js []byte) bool {
	s := bytes.TrimSpace(js)
	return len(s) == 0 || string(s) == "null"
}

// decodeJSON decodes one document or list item. item is its path inside the
// enclosing lists ("" at the top).
func decodeJSON(plugin Kind, js []byte, item string, depth int) ([]decoded, error) {
	fail := func(kind string, err error) error {
		return &LoadError{Item: item, Kind: kind, Err: err}
	}
	s := bytes.TrimSpace(js)
	if len(s) == 0 || s[0] != '{' {
		return nil, fail("", fmt.Errorf("%w: a document must be an object", ErrSyntax))
	}
	var tm metav1.TypeMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(s, &tm); err != nil {
		return nil, fail("", fmt.Errorf("%w: apiVersion, kind: %w", ErrSyntax, err))
	}
	if tm.APIVersion == "" || tm.Kind == "" {
		return nil, fail("", fmt.Errorf("%w: apiVersion and kind must be set", ErrSyntax))
	}
	if tm.APIVersion == "v1" && tm.Kind == "List" {
		if depth >= maxListDepth {
			return nil, fail("List", fmt.Errorf("%w: lists nested more than %d deep", ErrUnsupportedKind, maxListDepth))
		}
		var list metav1.List
		if err := strictUnmarshal(s, &list); err != nil {
			return nil, fail("List", err)
		}
		var out []decoded
		for i, raw := range list.Items {
			path := fmt.Sprintf("%sitems[%d]", dotted(item), i)
			if raw.Raw == nil || isNull(raw.Raw) {
				return nil, &LoadError{Item: path, Err: fmt.Errorf("%w: a list item must be an object", ErrSyntax)}
			}
			objs, err := decodeJSON(plugin, raw.Raw, path, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
		return out, nil
	}
	if tm.APIVersion != GroupVersion {
		return nil, fail(tm.Kind, fmt.Errorf("%w %q: apiVersion: only %s is supported", ErrUnsupportedVersion, tm.APIVersion, GroupVersion))
	}
	kind, isList, ok := plugin.allows(tm.Kind)
	if !ok {
		return nil, fail(tm.Kind, fmt.Errorf("%w %q: kind: the %s plugin accepts only %s (or v1 List)",
			ErrUnsupportedKind, tm.Kind, plugin, strings.Join(allowedKinds[plugin], ", ")))
	}
	if isList {
		list := newList(kind)
		if err := strictUnmarshal(s, list); err != nil {
			return nil, fail(tm.Kind, err)
		}
		var out []decoded
		for i, obj := range listItems(list) {
			obj.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(GroupVersion, kind))
			out = append(out, decoded{item: fmt.Sprintf("%sitems[%d]", dotted(item), i), kind: kind, obj: obj})
		}
		return out, nil
	}
	obj := newObject(kind)
	if err := strictUnmarshal(s, obj); err != nil {
		return nil, fail(tm.Kind, err)
	}
	return []decoded{{item: item, kind: kind, obj: obj}}, nil
}

func dotted(item string) string {
	if item == "" {
		return ""
	}
	return item + "."
}

// strictUnmarshal refuses unknown and duplicate fields, naming each by its
// path, in the same words as apimachinery's strict decoder.
func strictUnmarshal(js []byte, into any) error {
	strict, err := sigsjson.UnmarshalStrict(js, into, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%w: %s", ErrStrictDecoding, strings.Join(msgs, ", "))
	}
	return nil
}

func newObject(kind string) runtime.Object {
	switch kind {
	case KindValidatingAdmissionPolicy:
		return &admissionv1.ValidatingAdmissionPolicy{}
	case KindValidatingAdmissionPolicyBinding:
		return &admissionv1.ValidatingAdmissionPolicyBinding{}
	case KindMutatingAdmissionPolicy:
		return &admissionv1.MutatingAdmissionPolicy{}
	case KindMutatingAdmissionPolicyBinding:
		return &admissionv1.MutatingAdmissionPolicyBinding{}
	case KindValidatingWebhookConfiguration:
		return &admissionv1.ValidatingWebhookConfiguration{}
	case KindMutatingWebhookConfiguration:
		return &admissionv1.MutatingWebhookConfiguration{}
	}
	return nil // unreachable: kind comes from allowedKinds
}

func newList(kind string) runtime.Object {
	switch kind {
	case KindValidatingAdmissionPolicy:
		return &admissionv1.ValidatingAdmissionPolicyList{}
	case KindValidatingAdmissionPolicyBinding:
		return &admissionv1.ValidatingAdmissionPolicyBindingList{}
	case KindMutatingAdmissionPolicy:
		return &admissionv1.MutatingAdmissionPolicyList{}
	case KindMutatingAdmissionPolicyBinding:
		return &admissionv1.MutatingAdmissionPolicyBindingList{}
	case KindValidatingWebhookConfiguration:
		return &admissionv1.ValidatingWebhookConfigurationList{}
	case KindMutatingWebhookConfiguration:
		return &admissionv1.MutatingWebhookConfigurationList{}
	}
	return nil
}

func listItems(list runtime.Object) []runtime.Object {
	var out []runtime.Object
	switch l := list.(type) {
	case *admissionv1.ValidatingAdmissionPolicyList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *admissionv1.ValidatingAdmissionPolicyBindingList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *admissionv1.MutatingAdmissionPolicyList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *admissionv1.MutatingAdmissionPolicyBindingList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *admissionv1.ValidatingWebhookConfigurationList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *admissionv1.MutatingWebhookConfigurationList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out
}
