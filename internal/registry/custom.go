package registry

import (
	"context"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// CRDCleanupFinalizer holds a deleted CustomResourceDefinition until its
// custom resources are gone (the crdcleanup controller removes it).
const CRDCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// Custom is what serving a resource that a CustomResourceDefinition
// defines takes beyond the table: its objects are unstructured, stored
// as JSON in the storage version, and defaulted and validated by the
// served version's schema rather than by Go types.
type Custom struct {
	// CRD and UID name the defining CustomResourceDefinition.
	CRD string
	UID types.UID
	// StorageVersion is the version objects are stored in; every served
	// version of the resource shares one key prefix.
	StorageVersion string
	// Schema is the served version's schema.
	Schema CustomSchema
	// Convert converts obj in place to the given version of the group, by
	// the CRD's conversion strategy.
	Convert func(ctx context.Context, obj *unstructured.Unstructured, version string) error
	// ConvertList is Convert for the objects of a list, in one call of
	// the CRD's conversion webhook. It returns nil when all are
	// converted, otherwise one error per object (nil for the converted).
	ConvertList func(ctx context.Context, objs []*unstructured.Unstructured, version string) []error
	// Managers are the field managers of the resource ("") and of its
	// status subresource ("status").
	Managers map[string]*managedfields.FieldManager
	// TypeConverter is the structured-merge-diff converter of the CRD's
	// served versions, for ApplyConfiguration mutations.
	TypeConverter managedfields.TypeConverter
	// Versions are the CRD's served versions in the order it lists them:
	// the resources equivalent to this one (matchPolicy Equivalent), in
	// the order kube-apiserver tries them.
	Versions []string
	// Scale holds the scale subresource's paths, nil without one.
	Scale *apiextensionsv1.CustomResourceSubresourceScale
	// Terminating is set while the CRD is being deleted: its objects can
	// still be read and deleted, but no new ones created.
	Terminating bool
}

// CustomSchema is one served version's schema: how an object decoded
// from a request or the store is made well-formed, defaulted, prepared
// and validated as kube-apiserver's custom resource strategy does, and
// how it is printed and selected (internal/crd/schema implements it).
type CustomSchema interface {
	// Coerce fixes or rejects ill-typed metadata and prunes unknown
	// fields of a decoded request, returning the unknown fields' paths.
	Coerce(obj *unstructured.Unstructured) ([]string, error)
	// CoerceStored is Coerce for an object read from the store.
	CoerceStored(obj *unstructured.Unstructured) error
	// Prune removes the fields the schema does not know.
	Prune(obj map[string]any) []string
	// Default sets the schema's defaults.
	Default(obj map[string]any)
	PrepareForCreate(obj *unstructured.Unstructured)
	PrepareForUpdate(obj, old *unstructured.Unstructured)
	PrepareForStatusUpdate(obj, old *unstructured.Unstructured)
	ValidateCreate(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList
	// ValidateUpdate and ValidateStatusUpdate also return warnings
	// (ratcheted rules).
	ValidateUpdate(ctx context.Context, obj, old *unstructured.Unstructured) (field.ErrorList, []string)
	ValidateStatusUpdate(ctx context.Context, obj, old *unstructured.Unstructured) (field.ErrorList, []string)
	WarningsOnCreate(obj *unstructured.Unstructured) []string
	WarningsOnUpdate(obj, old *unstructured.Unstructured) []string
	// Table renders an object or list for kubectl get.
	Table(obj runtime.Object, opts metav1.TableOptions, now time.Time) (*metav1.Table, error)
	// Fields returns the selectable fields of an object.
	Fields(obj *unstructured.Unstructured) (fields.Set, error)
	// ConvertFieldLabel accepts the labels Fields provides.
	ConvertFieldLabel(label, value string) (string, string, error)
	// OpenAPI is the version's published schema.
	OpenAPI() *spec.Schema
}
