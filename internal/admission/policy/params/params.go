package params

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Source reads param objects. Objects may be typed or unstructured and
// are not modified.
type Source interface {
	// Namespaced reports whether kind is a namespaced kind; an error
	// (wrapping ErrUnknownKind) when kind is not served.
	Namespaced(kind schema.GroupVersionKind) (bool, error)
	// Get returns one object; apierrors NotFound when it does not exist.
	// namespace is empty for cluster-scoped kinds.
	Get(ctx context.Context, kind schema.GroupVersionKind, namespace, name string) (runtime.Object, error)
	// List returns the objects selected by selector in namespace (all
	// namespaces of a cluster-scoped kind when namespace is empty).
	List(ctx context.Context, kind schema.GroupVersionKind, namespace string, selector labels.Selector) ([]runtime.Object, error)
}

// Kind parses a paramKind.
func Kind(pk *admissionregistrationv1.ParamKind) (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
	}
	return gv.WithKind(pk.Kind), nil
}

// UnresolvedKindError is kube-apiserver's configuration error for a
// paramKind it cannot find.
func UnresolvedKindError(kind schema.GroupVersionKind) error {
	return fmt.Errorf("failed to find resource referenced by paramKind: '%v'", kind)
}

// Ref is a compiled paramRef.
type Ref struct {
	*admissionregistrationv1.ParamRef
	selector    labels.Selector
	selectorErr error
}

// CompileRef compiles ref (nil for none).
func CompileRef(ref *admissionregistrationv1.ParamRef) *Ref {
	if ref == nil {
		return nil
	}
	r := &Ref{ParamRef: ref}
	if ref.Selector != nil {
		r.selector, r.selectorErr = metav1.LabelSelectorAsSelector(ref.Selector)
	}
	return r
}

// Collect returns the params of one binding for a request in
// requestNamespace: a single nil when the policy has no paramKind or the
// binding no paramRef (expressions then see params as null), none when no
// object was found and the binding allows that (the binding is then not
// evaluated), or the objects found, ordered by namespace and name.
// namespaced tells the scope of kind, which the caller resolved.
func Collect(ctx context.Context, src Source, kind *schema.GroupVersionKind, namespaced bool, ref *Ref, requestNamespace string) ([]runtime.Object, error) {
	if kind == nil || ref == nil {
		return []runtime.Object{nil}, nil
	}
	namespace := ""
	if namespaced {
		namespace = requestNamespace
		if ref.Namespace != "" {
			namespace = ref.Namespace
		} else if namespace == "" {
			return nil, ErrNamespacedParamForClusterRequest
		}
	}
	var found []runtime.Object
	switch {
	case ref.Namespace != "" && !namespaced:
		return nil, ErrNamespaceForClusterParam
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, ErrNameAndSelector
		}
		obj, err := src.Get(ctx, *kind, namespace, ref.Name)
		switch {
		case err == nil:
			found = []runtime.Object{obj}
		case apierrors.IsNotFound(err):
		default:
			return nil, err
		}
	case ref.Selector != nil:
		if ref.selectorErr != nil {
			return nil, ref.selectorErr
		}
		objs, err := src.List(ctx, *kind, namespace, ref.selector)
		if err != nil {
			return nil, err
		}
		found = sortByName(slices.Clone(objs))
	default:
		return nil, ErrNoNameOrSelector
	}
	if len(found) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction {
		return nil, ErrNotFoundDeny
	}
	return found, nil
}

// sortByName orders objects by namespace and name so that evaluation does
// not depend on the order a store lists them in.
func sortByName(objs []runtime.Object) []runtime.Object {
	key := func(o runtime.Object) (string, string) {
		m, err := meta.Accessor(o)
		if err != nil {
			return "", ""
		}
		return m.GetNamespace(), m.GetName()
	}
	slices.SortStableFunc(objs, func(a, b runtime.Object) int {
		an, aname := key(a)
		bn, bname := key(b)
		return cmp.Or(cmp.Compare(an, bn), cmp.Compare(aname, bname))
	})
	return objs
}
