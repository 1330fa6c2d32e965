package schema

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// PrepareForCreate does what kube-apiserver's custom resource strategy
// does to a new object before validation: with the status subresource,
// the status is dropped (it is written through /status only); the
// generation becomes 1.
func (v *Version) PrepareForCreate(obj *unstructured.Unstructured) {
	if v.status != nil {
		delete(obj.Object, "status")
	}
	obj.SetGeneration(1)
}

// PrepareForUpdate does what kube-apiserver's custom resource strategy
// does to an update of the main resource before validation: with the
// status subresource, the status stays as it was in old; the generation
// is old's (clients cannot set it, kube-apiserver's generic update resets
// it first), plus one when anything but metadata changed
// (Semantic.DeepEqual).
func (v *Version) PrepareForUpdate(obj, old *unstructured.Unstructured) {
	obj.SetGeneration(old.GetGeneration())
	if v.status != nil {
		if status, ok := old.Object["status"]; ok {
			obj.Object["status"] = status
		} else {
			delete(obj.Object, "status")
		}
	}
	if !equality.Semantic.DeepEqual(withoutMetadata(obj.Object), withoutMetadata(old.Object)) {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
}

// withoutMetadata is a shallow copy of obj without its metadata.
func withoutMetadata(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "metadata" {
			out[k] = v
		}
	}
	return out
}

// PrepareForStatusUpdate does what kube-apiserver's status strategy does
// to an update through /status before validation: obj becomes a copy of
// old with obj's status (or none, when obj has none) and obj's
// managedFields, which the field manager has already updated.
func (v *Version) PrepareForStatusUpdate(obj, old *unstructured.Unstructured) {
	status, ok := obj.Object["status"]
	managed := obj.GetManagedFields()
	*obj = *old.DeepCopy()
	obj.SetManagedFields(managed)
	if ok {
		obj.Object["status"] = status
	} else {
		delete(obj.Object, "status")
	}
}

// ResetFields are the fields that server-side apply resets for the main
// resource (resource == "") and the status subresource (resource ==
// "status"), by API version, as kube-apiserver's strategies declare them:
// the main resource resets status when the version has the status
// subresource, the status subresource resets metadata and spec. Other
// subresources reset nothing.
func (v *Version) ResetFields(subresource string) map[fieldpath.APIVersion]*fieldpath.Set {
	gv := fieldpath.APIVersion(v.gvk.GroupVersion().String())
	switch subresource {
	case "":
		if v.status == nil {
			return map[fieldpath.APIVersion]*fieldpath.Set{}
		}
		return map[fieldpath.APIVersion]*fieldpath.Set{gv: fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}
	case "status":
		return map[fieldpath.APIVersion]*fieldpath.Set{gv: fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))}
	}
	return nil
}

// WarningsOnCreate are kube-apiserver's warnings for a created object, which
// it sends only when the create succeeds: one for each finalizer name that
// is not a qualified name, or that has no domain or no path.
func (v *Version) WarningsOnCreate(obj *unstructured.Unstructured) []string {
	return finalizerWarnings(obj.GetFinalizers(), nil)
}

// WarningsOnUpdate are WarningsOnCreate for the finalizers that obj adds to
// old. The status subresource has none.
func (v *Version) WarningsOnUpdate(obj, old *unstructured.Unstructured) []string {
	return finalizerWarnings(obj.GetFinalizers(), old.GetFinalizers())
}

// standardFinalizers are the finalizers Kubernetes itself defines, which
// need no domain.
var standardFinalizers = []string{metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents, "kubernetes"}

var finalizersPath = "metadata.finalizers"

// finalizerWarnings warns about each finalizer of names that old lacks,
// in sorted order without duplicates, as kube-apiserver does.
func finalizerWarnings(names, old []string) []string {
	added := slices.Clone(names)
	slices.Sort(added)
	added = slices.Compact(added)
	var warnings []string
	for _, name := range added {
		if slices.Contains(old, name) {
			continue
		}
		for _, msg := range validation.IsQualifiedName(name) {
			warnings = append(warnings, fmt.Sprintf("%s: %q: %s", finalizersPath, name, msg))
		}
		if strings.Contains(name, "/") || slices.Contains(standardFinalizers, name) {
			continue
		}
		if strings.Contains(name, ".") {
			warnings = append(warnings, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", finalizersPath, name))
		} else {
			warnings = append(warnings, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", finalizersPath, name))
		}
	}
	return warnings
}
