package mutating

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// objects turns admission objects into the unstructured content that
// mutations read and patch, and patched content back into objects of the
// kind admission was given: typed objects stay typed and are defaulted
// after every mutation, as kube-apiserver defaults a mutated object before
// the next mutation sees it. The object admission was given is never
// modified: content is always a fresh copy.
type objects struct {
	scheme     *runtime.Scheme
	serializer *json.Serializer
	converter  func(schema.GroupVersionKind) managedfields.TypeConverter
	defaulter  func(runtime.Object)
}

func newObjects(scheme *runtime.Scheme, converter func(schema.GroupVersionKind) managedfields.TypeConverter, defaulter func(runtime.Object)) *objects {
	return &objects{
		scheme:     scheme,
		serializer: json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Strict: true}),
		converter:  converter,
		defaulter:  defaulter,
	}
}

// content returns a copy of obj as unstructured content with the
// apiVersion and kind of gvk, which typed objects may lack.
func (o *objects) content(obj runtime.Object, gvk schema.GroupVersionKind) (map[string]any, error) {
	var content map[string]any
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content = runtime.DeepCopyJSON(u.Object)
	} else {
		var err error
		if content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to convert object: %w", err))
		}
	}
	if content == nil {
		content = map[string]any{}
	}
	if !gvk.Empty() {
		content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
	}
	return content, nil
}

// object turns patched content back into an object like orig, taking
// ownership of content.
func (o *objects) object(content map[string]any, orig runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if _, ok := orig.(*unstructured.Unstructured); ok {
		return &unstructured.Unstructured{Object: content}, nil
	}
	out, err := o.scheme.New(gvk)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, out); err != nil {
		return nil, fmt.Errorf("failed to convert patched object: %w", err)
	}
	return o.finish(out, orig), nil
}

// decode decodes a JSON patch's result strictly into an object like orig;
// unknown fields are an internal error, as in kube-apiserver.
func (o *objects) decode(data []byte, orig runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	var into runtime.Object = &unstructured.Unstructured{}
	typed := true
	if _, ok := orig.(*unstructured.Unstructured); ok {
		typed = false
	} else {
		var err error
		if into, err = o.scheme.New(gvk); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	out, got, err := o.serializer.Decode(data, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if got == nil || *got != gvk {
		return nil, fmt.Errorf("JSON Patch: %w", ErrKindChanged)
	}
	if !typed {
		return out, nil
	}
	return o.finish(out, orig), nil
}

// finish defaults a typed object and gives it the apiVersion and kind
// orig had (none, usually), so that an unchanged object compares equal.
func (o *objects) finish(obj, orig runtime.Object) runtime.Object {
	if o.defaulter != nil {
		o.defaulter(obj)
	}
	obj.GetObjectKind().SetGroupVersionKind(orig.GetObjectKind().GroupVersionKind())
	return obj
}

// typeConverter returns the converter of gvk, or kube-apiserver's error
// for a kind whose schema is unknown.
func (o *objects) typeConverter(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
	if tc := o.converter(gvk); tc != nil {
		return tc, nil
	}
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", gvk))
}

// isStatusError reports whether err chooses the response itself, whatever
// the failure policy, as kube-apiserver's internal errors do.
func isStatusError(err error) bool {
	var se *apierrors.StatusError
	return errors.As(err, &se)
}
