package conversion

import (
	"fmt"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// accept checks the webhook's conversion of in (the index-th object
// sent) and returns it with in's metadata restored but for labels and
// annotations. The texts are kube-apiserver's for a single object.
func accept(in *unstructured.Unstructured, raw runtime.RawExtension, to schema.GroupVersion, index int) (*unstructured.Unstructured, error) {
	from := in.GroupVersionKind()
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(raw.Raw); err != nil {
		// kube-apiserver returns this one as it is.
		return nil, err
	}
	if got := out.GroupVersionKind().GroupVersion(); got != to {
		return nil, &Error{msg: fmt.Sprintf("conversion webhook for %v returned invalid object at index %d: invalid groupVersion (expected %v, received %v)", from, index, to, got)}
	}
	if got := out.GetKind(); got != from.Kind {
		return nil, &Error{msg: fmt.Sprintf("conversion webhook for %v returned invalid object at index %d: invalid kind (expected %v, received %v)", from, index, from.Kind, got)}
	}
	if err := sameIdentity(in, out); err != nil {
		return nil, &Error{msg: fmt.Sprintf("conversion webhook for %v returned invalid object: %v", from, err)}
	}
	if err := restoreMetadata(in, out); err != nil {
		return nil, &Error{msg: fmt.Sprintf("conversion webhook for %v returned invalid metadata: %v", from, err)}
	}
	return out, nil
}

// sameIdentity: a webhook may not change which object it is.
func sameIdentity(in, out *unstructured.Unstructured) error {
	for _, f := range []struct {
		what      string
		want, got string
	}{
		{"kind", in.GetKind(), out.GetKind()},
		{"name", in.GetName(), out.GetName()},
		{"namespace", in.GetNamespace(), out.GetNamespace()},
		{"UID", string(in.GetUID()), string(out.GetUID())},
	} {
		if f.want != f.got {
			return fmt.Errorf("must have the same %s: %v != %v", f.what, f.want, f.got)
		}
	}
	return nil
}

// restoreMetadata gives out a copy of in's metadata, keeping out's labels
// and annotations (checked if they changed; absent or null ones drop
// in's).
func restoreMetadata(in, out *unstructured.Unstructured) error {
	m, ok := out.Object["metadata"]
	if !ok {
		return fmt.Errorf("missing metadata in converted object")
	}
	answered, ok := m.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %T in converted object", m)
	}
	restored := map[string]any{}
	if orig, ok := in.Object["metadata"]; ok {
		c, ok := runtime.DeepCopyJSONValue(orig).(map[string]any)
		if !ok {
			return fmt.Errorf("invalid metadata of type %T in input object", orig)
		}
		restored = c
	}
	for _, fld := range []string{"labels", "annotations"} {
		v, ok := answered[fld]
		if !ok || v == nil {
			delete(restored, fld)
			continue
		}
		got, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("invalid metadata.%s of type %T in converted object", fld, v)
		}
		had, ok := restored[fld].(map[string]any)
		if !ok && restored[fld] != nil {
			return fmt.Errorf("invalid metadata.%s of type %T in original object", fld, restored[fld])
		}
		changed := len(had) != len(got)
		strs := make(map[string]string, len(got))
		for k, v := range got {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %T in converted object", fld, k, v)
			}
			if h, ok := had[k].(string); !ok || h != s {
				changed = true
			}
			strs[k] = s
		}
		if changed {
			var errs field.ErrorList
			if fld == "labels" {
				errs = metav1validation.ValidateLabels(strs, field.NewPath("metadata", "labels"))
			} else {
				// sic: kube-apiserver's path.
				errs = apivalidation.ValidateAnnotations(strs, field.NewPath("metadata", "annotation"))
			}
			if len(errs) > 0 {
				return errs.ToAggregate()
			}
		}
		restored[fld] = got
	}
	out.Object["metadata"] = restored
	return nil
}
