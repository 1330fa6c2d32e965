package definition

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Default sets the defaults kube-apiserver sets on a decoded v1
// definition: singular and listKind from kind, conversion strategy None,
// port 443 of a conversion webhook service, and a storedVersions of the
// storage version when none is given.
func Default(crd *apiextensionsv1.CustomResourceDefinition) {
	if crd != nil {
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	}
}

// ValidateCreate validates a new definition (after Default and
// PrepareForCreate) as kube-apiserver does: metadata.name as
// <plural>.<group>, names, group, scope, versions, schemas, CEL rules and
// their cost, printer columns, selectable fields, subresources,
// conversion, storedVersions and the API approval annotation of
// *.k8s.io and *.kubernetes.io groups.
func ValidateCreate(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	in, errs := internal(crd)
	if errs != nil {
		return errs
	}
	return crdvalidation.ValidateCustomResourceDefinition(context.Background(), in)
}

// ValidateUpdate validates a definition replacing old through the main
// resource: everything ValidateCreate checks, with kube-apiserver's
// ratcheting (rules that the stored definition already broke are not
// enforced, unchanged schemas keep their CEL cost), plus the immutable
// group and plural, and scope and kind once old is established.
func ValidateUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validatePair(crd, old, crdvalidation.ValidateCustomResourceDefinitionUpdate)
}

// ValidateStatusUpdate validates a write through /status: the metadata
// update rules and the accepted names. kube-apiserver checks neither the
// (unchanged) spec nor storedVersions there.
func ValidateStatusUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	return validatePair(crd, old, crdvalidation.ValidateUpdateCustomResourceDefinitionStatus)
}

// validatePair runs one of the library's update validations on crd and
// old, converted to the internal type.
func validatePair(crd, old *apiextensionsv1.CustomResourceDefinition,
	validate func(context.Context, *apiextensions.CustomResourceDefinition, *apiextensions.CustomResourceDefinition) field.ErrorList) field.ErrorList {
	in, errs := internal(crd)
	if errs != nil {
		return errs
	}
	inOld, errs := internal(old)
	if errs != nil {
		return errs
	}
	return validate(context.Background(), in, inOld)
}

// internal converts a copy of crd to the internal type the validation
// library works on; the generated conversions share memory between the
// two, and the caller's object must not change.
func internal(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, field.ErrorList) {
	if crd == nil {
		return nil, field.ErrorList{field.InternalError(field.NewPath(""), ErrNilDefinition)}
	}
	out := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd.DeepCopy(), out, nil); err != nil {
		return nil, field.ErrorList{field.InternalError(field.NewPath(""), fmt.Errorf("%w: %w", ErrConversion, err))}
	}
	return out, nil
}
