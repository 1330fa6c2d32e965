package printers

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// Table converts one object or a list (e.g. *corev1.PodList) to a
// metav1.Table. Rows carry the object as runtime.RawExtension{Object: obj}
// when opts.IncludeObject is Object, its PartialObjectMetadata when Metadata,
// nothing when None (metav1.IncludeObjectPolicy; default Metadata). now is
// passed for AGE so tests are deterministic.
func Table(obj runtime.Object, opts metav1.TableOptions, now time.Time) (*metav1.Table, error) {
	if v := reflect.ValueOf(obj); obj == nil || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil, fmt.Errorf("%w: no object", ErrNotTable)
	}
	switch opts.IncludeObject {
	case "", metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject:
	default:
		return nil, fmt.Errorf("%w: %q", ErrIncludeObject, opts.IncludeObject)
	}

	items := []runtime.Object{obj}
	p := printerFor(reflect.TypeOf(obj))
	if meta.IsListType(obj) {
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotTable, err)
		}
		p = printerFor(listItemType(obj))
		if p.order != nil {
			items = slices.Clone(items)
			slices.SortStableFunc(items, p.order)
		}
	}

	table := &metav1.Table{
		TypeMeta: metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: "Table"},
		Rows:     make([]metav1.TableRow, 0, len(items)),
	}
	for _, item := range items {
		row, err := p.row(item, now)
		if err != nil {
			return nil, err
		}
		if row.Object, err = rowObject(item, opts.IncludeObject); err != nil {
			return nil, err
		}
		table.Rows = append(table.Rows, row)
	}
	if !opts.NoHeaders {
		// A copy, so that callers cannot edit the shared registry.
		table.ColumnDefinitions = slices.Clone(p.columns)
	}

	if list, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = list.GetResourceVersion()
		table.Continue = list.GetContinue()
		table.RemainingItemCount = list.GetRemainingItemCount()
	} else if common, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = common.GetResourceVersion()
	}
	return table, nil
}

// listItemType is the pointer type of a list's items, so that an empty list
// still gets its item type's columns. Lists of interfaces or raw extensions
// have no single item type and get the default columns.
func listItemType(list runtime.Object) reflect.Type {
	items, err := meta.GetItemsPtr(list)
	if err != nil {
		return nil
	}
	t := reflect.TypeOf(items).Elem()
	if t.Kind() != reflect.Slice {
		return nil
	}
	switch t = t.Elem(); t.Kind() {
	case reflect.Struct:
		return reflect.PointerTo(t)
	case reflect.Pointer:
		return t
	}
	return nil
}

// partialObjectMetadataKind is what Metadata rows are typed as; kubectl only
// asks for meta.k8s.io/v1 tables, so the version is fixed.
var partialObjectMetadataKind = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")

func rowObject(obj runtime.Object, policy metav1.IncludeObjectPolicy) (runtime.RawExtension, error) {
	switch policy {
	case metav1.IncludeNone:
		return runtime.RawExtension{}, nil
	case metav1.IncludeObject:
		return runtime.RawExtension{Object: withKind(obj)}, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return runtime.RawExtension{}, fmt.Errorf("%w: %w", ErrNotTable, err)
	}
	partial := meta.AsPartialObjectMetadata(m)
	partial.SetGroupVersionKind(partialObjectMetadataKind)
	return runtime.RawExtension{Object: partial}, nil
}

// withKind returns obj with apiVersion and kind set, as clients decoding a
// row's object need them; list items usually come without. The caller's
// object is never modified.
func withKind(obj runtime.Object) runtime.Object {
	if !obj.GetObjectKind().GroupVersionKind().Empty() {
		return obj
	}
	kinds, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		kinds = apiextensionsKinds(obj)
	}
	if len(kinds) == 0 {
		return obj
	}
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(kinds[0])
	return obj
}
