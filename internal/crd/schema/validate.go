package schema

import (
	"context"
	"fmt"
	"math"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/kube-openapi/pkg/validation/validate"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// declarativeValidationBeta is kube-apiserver 1.37's default of the
// DeclarativeValidationBeta feature gate, which decides whether the beta
// declarative rules of ObjectMeta are enforced.
const declarativeValidationBeta = true

var (
	metadataPath   = field.NewPath("metadata")
	kindPath       = field.NewPath("kind")
	apiVersionPath = field.NewPath("apiVersion")
	statusPath     = field.NewPath("status")
)

// blockedCEL is kube-apiserver's error in place of the CEL rules when the
// object already failed a check that makes them meaningless.
const blockedCEL = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// ValidateCreate checks a new object as kube-apiserver's custom resource
// strategy does, in its order: apiVersion and kind (when they are wrong,
// metadata, schema and scale are not checked, the rest is), metadata
// (name a DNS subdomain, namespace required for namespaced kinds and
// forbidden otherwise, labels, annotations, ...), the OpenAPI schema
// (types, formats, enum, pattern, bounds, required, nullable,
// int-or-string; kube-openapi's texts at kube-apiserver's paths), the
// scale subresource's replicas
// paths, the metadata and type of embedded resources, the uniqueness of
// x-kubernetes-list-type set and map items, and the
// x-kubernetes-validations rules (message, messageExpression, reason,
// fieldPath) within celbase.RuntimeCELCostBudget. The rules are not run,
// and one error says so, when an earlier check found a missing, too long,
// too many, unsupported or mistyped value.
//
// The caller has done what kube-apiserver does first: Coerce and Default,
// the name generated from generateName, the namespace set or cleared by
// scope, and PrepareForCreate. The error list is what kube-apiserver turns
// into its 422 Invalid status.
func (v *Version) ValidateCreate(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList {
	errs := v.validateTypeMeta(obj)
	if len(errs) == 0 {
		errs = append(errs, v.validateObjectMeta(ctx, obj, nil)...)
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj.UnstructuredContent(), v.validator)...)
		errs = append(errs, v.validateScaleSpec(obj)...)
		errs = append(errs, v.validateScaleStatus(obj)...)
	}
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, obj.Object, v.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj.Object)...)
	return v.validateRules(ctx, errs, obj.Object, nil, nil)
}

// ValidateUpdate checks obj replacing old as kube-apiserver's custom
// resource strategy does: what ValidateCreate checks, with the metadata
// update rules (immutable name, namespace, uid, creationTimestamp, ...)
// in place of the create ones, transition rules (those using oldSelf, run
// when the value existed before, or always with optionalOldSelf), and
// ratcheting (CRDValidationRatcheting, GA and on in 1.37): schema and CEL
// errors in values that did not change are not reported, and list-set and
// list-map duplicates only when old had none.
//
// The warnings are the CEL errors that ratcheting let pass;
// kube-apiserver sends them as "Warning: 299" headers whatever the
// outcome. The caller has applied PrepareForUpdate.
func (v *Version) ValidateUpdate(ctx context.Context, obj, old *unstructured.Unstructured) (field.ErrorList, []string) {
	correlated := v.correlate(obj.Object, old.Object)
	errs := v.validateTypeMeta(obj)
	if len(errs) == 0 {
		errs = append(errs, v.validateObjectMeta(ctx, obj, old)...)
		errs = append(errs, validateUpdate(nil, obj.UnstructuredContent(), old.UnstructuredContent(), v.validator, correlated != nil, correlated)...)
		errs = append(errs, v.validateScaleSpec(obj)...)
		errs = append(errs, v.validateScaleStatus(obj)...)
	}
	// Embedded resources are checked as on create.
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, obj.Object, v.structural, false)...)
	if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, old.Object); len(oldErrs) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj.Object)...)
	}
	return v.validateRulesWithWarnings(ctx, errs, obj.Object, old.Object, correlated)
}

// ValidateStatusUpdate checks an update through the status subresource
// as kube-apiserver's status strategy does: apiVersion and kind, the
// metadata update rules, the status against the schema's status property
// (when obj has a status), the scale subresource's status paths,
// list-set and list-map duplicates (ratcheted) and every
// x-kubernetes-validations rule of the object, with ratcheting. Warnings
// are as for ValidateUpdate. The caller has applied
// PrepareForStatusUpdate, so that only the status differs from old.
func (v *Version) ValidateStatusUpdate(ctx context.Context, obj, old *unstructured.Unstructured) (field.ErrorList, []string) {
	correlated := v.correlate(obj.Object, old.Object)
	errs := v.validateTypeMeta(obj)
	if len(errs) == 0 {
		errs = append(errs, v.validateObjectMeta(ctx, obj, old)...)
		if status, ok := obj.Object["status"]; ok && v.statusValidator != nil {
			// Key is nil when old has no status to correlate; the
			// validator then correlates the two itself.
			errs = append(errs, validateUpdate(statusPath, status, old.Object["status"], v.statusValidator, correlated != nil, correlated.Key("status"))...)
		}
		errs = append(errs, v.validateScaleStatus(obj)...)
	}
	if newErrs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj.Object); len(newErrs) > 0 {
		if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, old.Object); len(oldErrs) == 0 {
			errs = append(errs, newErrs...)
		}
	}
	return v.validateRulesWithWarnings(ctx, errs, obj.Object, old.Object, correlated)
}

// correlate pairs the values of obj and old for ratcheting; nil without a
// structural schema, which only a legacy CRD lacks.
func (v *Version) correlate(obj, old map[string]any) *common.CorrelatedObject {
	if v.structural == nil {
		return nil
	}
	return common.NewCorrelatedObject(obj, old, &model.Structural{Structural: v.structural})
}

// validateUpdate is apiextensions' ValidateCustomResourceUpdate without
// its feature-gate read: the ratcheting validator is handed to
// ValidateCustomResource, which converts the result to field errors,
// through an adapter that validates the update. With ratchet, a nil
// correlation lets the validator correlate obj and old itself.
func validateUpdate(pth *field.Path, obj, old any, validator *apiservervalidation.RatchetingSchemaValidator, ratchet bool, correlated *common.CorrelatedObject) field.ErrorList {
	var opts []apiservervalidation.ValidationOption
	if ratchet {
		opts = append(opts, apiservervalidation.WithRatcheting(correlated))
	}
	return apiservervalidation.ValidateCustomResource(pth, obj, updateValidator{validator: validator, old: old}, opts...)
}

type updateValidator struct {
	validator *apiservervalidation.RatchetingSchemaValidator
	old       any
}

func (u updateValidator) Validate(obj any, opts ...apiservervalidation.ValidationOption) *validate.Result {
	return u.validator.ValidateUpdate(obj, u.old, opts...)
}

// validateRules runs the CEL rules unless errs holds an error that blocks
// them (kube-apiserver's hasBlockingErr), and appends their errors.
func (v *Version) validateRules(ctx context.Context, errs field.ErrorList, obj, old map[string]any, correlated *common.CorrelatedObject) field.ErrorList {
	if v.celValidator == nil {
		return errs
	}
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return append(errs, field.Invalid(nil, nil, blockedCEL))
		}
	}
	var opts []cel.Option
	var oldObj any
	if old != nil {
		oldObj = old
		if correlated != nil {
			opts = append(opts, cel.WithRatcheting(correlated))
		}
	}
	celErrs, _ := v.celValidator.Validate(ctx, nil, v.structural, obj, oldObj, celbase.RuntimeCELCostBudget, opts...)
	return append(errs, celErrs...)
}

// validateRulesWithWarnings is validateRules for updates, collecting the
// errors that ratcheting turned into warnings: the CEL validator reports
// them through k8s.io/apiserver's warning recorder in the context.
func (v *Version) validateRulesWithWarnings(ctx context.Context, errs field.ErrorList, obj, old map[string]any, correlated *common.CorrelatedObject) (field.ErrorList, []string) {
	var rec warnings
	errs = v.validateRules(warning.WithWarningRecorder(ctx, &rec), errs, obj, old, correlated)
	return errs, rec
}

// warnings is a warning.Recorder. A Version validates one object per
// call, so it needs no lock.
type warnings []string

func (w *warnings) AddWarning(_, text string) { *w = append(*w, text) }

// validateTypeMeta checks apiVersion and kind against the version's.
func (v *Version) validateTypeMeta(obj *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if kind := obj.GetKind(); kind != v.gvk.Kind {
		errs = append(errs, field.Invalid(kindPath, kind, fmt.Sprintf("must be %v", v.gvk.Kind)))
	}
	want := v.gvk.Group + "/" + v.gvk.Version
	if apiVersion := obj.GetAPIVersion(); apiVersion != want {
		errs = append(errs, field.Invalid(apiVersionPath, apiVersion, fmt.Sprintf("must be %v", want)))
	}
	return errs
}

// validateObjectMeta applies ObjectMeta's rules: the create ones when old
// is nil, the update ones otherwise, declarative ones included.
func (v *Version) validateObjectMeta(ctx context.Context, obj, old *unstructured.Unstructured) field.ErrorList {
	m, errs := objectMeta(obj)
	if len(errs) > 0 {
		return errs
	}
	if old == nil {
		return genericvalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, m, nil, v.namespaced, genericvalidation.NameIsDNSSubdomain, metadataPath, declarativeValidationBeta)
	}
	oldMeta, errs := objectMeta(old)
	if len(errs) > 0 {
		return errs
	}
	return genericvalidation.ValidateObjectMetaDeclaratively(ctx, operation.Update, m, oldMeta, v.namespaced, nil, metadataPath, declarativeValidationBeta)
}

// objectMeta decodes the metadata of obj; an object without metadata has
// an empty one.
func objectMeta(obj *unstructured.Unstructured) (*metav1.ObjectMeta, field.ErrorList) {
	m := &metav1.ObjectMeta{}
	if obj == nil || obj.Object == nil || obj.Object["metadata"] == nil {
		return m, nil
	}
	raw := obj.Object["metadata"]
	fields, ok := raw.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.Invalid(metadataPath, raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(fields, m); err != nil {
		return nil, field.ErrorList{field.Invalid(metadataPath, raw, err.Error())}
	}
	return m, nil
}

// validateScaleSpec checks the value at specReplicasPath: an integer (or
// absent) between 0 and MaxInt32.
func (v *Version) validateScaleSpec(obj *unstructured.Unstructured) field.ErrorList {
	if v.scale == nil {
		return nil
	}
	return validateReplicas(obj, v.scale.SpecReplicasPath)
}

// validateScaleStatus checks the values at statusReplicasPath (as
// validateScaleSpec) and labelSelectorPath (a string, or absent).
func (v *Version) validateScaleStatus(obj *unstructured.Unstructured) field.ErrorList {
	if v.scale == nil {
		return nil
	}
	errs := validateReplicas(obj, v.scale.StatusReplicasPath)
	if p := v.scale.LabelSelectorPath; p != nil {
		selector, _, err := unstructured.NestedString(obj.Object, splitPath(*p)...)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath(*p), selector, err.Error()))
		}
	}
	return errs
}

func validateReplicas(obj *unstructured.Unstructured, path string) field.ErrorList {
	replicas, _, err := unstructured.NestedInt64(obj.Object, splitPath(path)...)
	// kube-apiserver names the field by the path as the CRD spells it,
	// leading dot included.
	switch pth := field.NewPath(path); {
	case err != nil:
		return field.ErrorList{field.Invalid(pth, replicas, err.Error())}
	case replicas < 0:
		return field.ErrorList{field.Invalid(pth, replicas, "should be a non-negative integer")}
	case replicas > math.MaxInt32:
		return field.ErrorList{field.Invalid(pth, replicas, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// splitPath splits a scale subresource path (".spec.replicas") into its
// fields.
func splitPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}
