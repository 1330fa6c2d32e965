package mutating

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// mergeApplyConfiguration merges an apply configuration into live the way
// server-side apply merges a configuration: fields are set or added,
// lists and maps merged by their keys, nothing removed. Ownership is not
// tracked, as in kube-apiserver. patch must not set atomic lists, maps or
// structs, which the merge would replace whole: a policy meaning to change
// one field of them would silently drop the others. live and patch are
// not modified; both have the same apiVersion and kind.
func mergeApplyConfiguration(tc managedfields.TypeConverter, live, patch map[string]any) (map[string]any, error) {
	patchTyped, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: patch})
	if err != nil {
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", err)
	}
	if atomics := findAtomics(nil, patchTyped.Schema(), patchTyped.TypeRef(), patchTyped.AsValue()); len(atomics) > 0 {
		// Sorted: the walk follows map order, and messages must be stable.
		slices.Sort(atomics)
		return nil, fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %s", strings.Join(atomics, ", "))
	}
	// The live object may carry duplicates that API validation let
	// through; only the patch must be clean.
	liveTyped, err := tc.ObjectToTyped(&unstructured.Unstructured{Object: live}, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", err)
	}
	merged, err := liveTyped.Merge(patchTyped)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", err)
	}
	obj, err := tc.TypedToObject(merged)
	if err != nil {
		return nil, fmt.Errorf("failed to convert typed object to object: %w", err)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("failed to convert typed object to object: unexpected %T", obj)
	}
	return u.Object, nil
}

// findAtomics lists the paths of the atomic lists, maps and structs that
// v sets, walking the fields of structs and the items of lists as
// kube-apiserver does (the values of maps are not walked).
func findAtomics(path []fieldpath.PathElement, s *schema.Schema, tr schema.TypeRef, v value.Value) []string {
	atom, ok := s.Resolve(tr)
	if !ok {
		// The patch was validated against the schema already.
		return nil
	}
	var out []string
	switch {
	case v.IsMap() && atom.Map != nil:
		if atom.Map.ElementRelationship == schema.Atomic {
			out = append(out, pathString(path))
		}
		v.AsMap().Iterate(func(key string, field value.Value) bool {
			if sf, ok := atom.Map.FindField(key); ok {
				child := append(path[:len(path):len(path)], fieldpath.PathElement{FieldName: &key})
				out = append(out, findAtomics(child, s, sf.Type, field)...)
			}
			return true
		})
	case v.IsList() && atom.List != nil:
		if atom.List.ElementRelationship == schema.Atomic {
			out = append(out, pathString(path))
		}
		l := v.AsList()
		for i := range l.Length() {
			child := append(path[:len(path):len(path)], fieldpath.PathElement{Index: &i})
			out = append(out, findAtomics(child, s, atom.List.ElementType, l.At(i))...)
		}
	}
	return out
}

func pathString(path []fieldpath.PathElement) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString(p.String())
	}
	return b.String()
}
