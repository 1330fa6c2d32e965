package schema

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// Version is the compiled machinery of one version of a
// CustomResourceDefinition. It is immutable and safe for concurrent use;
// a changed CustomResourceDefinition is compiled again.
type Version struct {
	crdName string
	// gvk is the kind objects must declare: the group, this version and
	// status.acceptedNames.kind, as kube-apiserver checks them.
	gvk        schema.GroupVersionKind
	namespaced bool
	// preserveUnknownFields is the legacy spec.preserveUnknownFields:
	// nothing is pruned.
	preserveUnknownFields bool

	// structural is the version's structural schema with its defaults
	// pruned, nil when there is none (only a legacy CRD with
	// spec.preserveUnknownFields may lack one or have a non-structural
	// one).
	structural *structuralschema.Structural
	// validator checks the whole object, statusValidator only its status
	// (nil unless the version has the status subresource and the schema a
	// status property).
	validator, statusValidator *apiservervalidation.RatchetingSchemaValidator
	// celValidator holds the compiled x-kubernetes-validations rules, nil
	// when there are none.
	celValidator *cel.Validator

	status *apiextensionsv1.CustomResourceSubresourceStatus
	scale  *apiextensionsv1.CustomResourceSubresourceScale

	table      tableConvertor
	selectable []selectableField

	openAPI       *openAPIState
	typeConverter managedfields.TypeConverter
}

// Compile builds the machinery of one version of crd, which must already
// have been validated (as kube-apiserver's CustomResourceDefinition
// validation does) and have accepted names (status.acceptedNames, which
// the names controller sets). Defaults of the v1 API are applied to a
// copy; crd itself is not kept or modified.
//
// Everything that costs time is done here, once per version (about 4 ms
// for a schema of thirty fields and five rules): the structural schema,
// the OpenAPI validators, the CEL programs of the x-kubernetes-validations
// rules (in the StoredExpressions environment of celbase.BaseEnvSet, with
// celbase.PerCallLimit, as kube-apiserver compiles the rules of a stored
// CustomResourceDefinition), the printer columns, the selectable fields,
// what the published OpenAPI models are built from and the type converter
// for server-side apply.
//
// A rule that does not compile does not stop the version from being
// served: kube-apiserver serves it and fails every object at that rule's
// node with "rule compile error: ..." (which validation reproduces).
// Compile then returns the usable Version together with a
// *RuleCompileError (errors.Is ErrRuleCompile) that lists the failing
// rules; a caller that wants kube-apiserver's behaviour serves the
// Version and logs the error. Any other error comes with a nil Version.
func Compile(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Version, error) {
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)

	var ver *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			ver = &crd.Spec.Versions[i]
			break
		}
	}
	if ver == nil {
		return nil, fmt.Errorf("%w: CustomResourceDefinition %s has no version %q", ErrVersion, crd.Name, version)
	}
	if crd.Status.AcceptedNames.Kind == "" {
		return nil, fmt.Errorf("%w: CustomResourceDefinition %s has an empty status.acceptedNames.kind", ErrNotAccepted, crd.Name)
	}

	v := &Version{
		crdName:               crd.Name,
		gvk:                   schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Status.AcceptedNames.Kind},
		namespaced:            crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		preserveUnknownFields: crd.Spec.PreserveUnknownFields,
	}
	if sub := ver.Subresources; sub != nil {
		v.status, v.scale = sub.Status, sub.Scale
	}

	var props *apiextensions.JSONSchemaProps
	if ver.Schema != nil && ver.Schema.OpenAPIV3Schema != nil {
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(ver.Schema, internal, nil); err != nil {
			return nil, fmt.Errorf("%w: converting the schema of %s %s: %w", ErrSchema, crd.Name, version, err)
		}
		props = internal.OpenAPIV3Schema
	}
	if err := v.compileSchema(props); err != nil {
		return nil, err
	}
	v.table = newTableConvertor(ver.AdditionalPrinterColumns)
	v.selectable = newSelectableFields(ver.SelectableFields)
	if err := v.buildOpenAPI(crd, ver, props); err != nil {
		return nil, err
	}

	if errs := ruleCompileErrors(v.structural); len(errs) > 0 {
		return v, &RuleCompileError{CRD: crd.Name, Version: version, Errors: errs}
	}
	return v, nil
}

// compileSchema builds the structural schema, the kube-openapi validators
// and the CEL validator from the internal form of the version's schema
// (nil when it has none), as kube-apiserver's handler does when it starts
// serving a version.
func (v *Version) compileSchema(props *apiextensions.JSONSchemaProps) error {
	if props != nil {
		s, err := structuralschema.NewStructural(props)
		switch {
		case err != nil && !v.preserveUnknownFields:
			return fmt.Errorf("%w: %s %s is not structural: %w", ErrSchema, v.crdName, v.gvk.Version, err)
		case err == nil && !v.preserveUnknownFields:
			// Defaults are shared with props; the copy keeps them ours.
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return fmt.Errorf("%w: pruning the defaults of %s %s: %w", ErrSchema, v.crdName, v.gvk.Version, err)
			}
		}
		v.structural = s
	}

	var err error
	if v.validator, err = newSchemaValidator(props); err != nil {
		return fmt.Errorf("%w: %s %s: %w", ErrSchema, v.crdName, v.gvk.Version, err)
	}
	if v.status != nil && props != nil {
		if status, ok := props.Properties["status"]; ok {
			if v.statusValidator, err = newSchemaValidator(&status); err != nil {
				return fmt.Errorf("%w: the status of %s %s: %w", ErrSchema, v.crdName, v.gvk.Version, err)
			}
		}
	}

	// cel.NewValidator compiles with environment.MustBaseEnvSet at the
	// default compatibility version, which is the very EnvSet that
	// celbase.BaseEnvSet returns (the environment package caches one per
	// version; TestCELBase checks that they are the same).
	v.celValidator = cel.NewValidator(v.structural, true, celbase.PerCallLimit)
	return nil
}

// newSchemaValidator converts props to kube-openapi's form, dropping the
// formats that the compatibility version does not know, and returns a
// ratcheting validator: CRDValidationRatcheting is GA and locked on in
// kube-apiserver 1.37, so this package does not read the feature gate
// (apiextensions' own constructor would).
func newSchemaValidator(props *apiextensions.JSONSchemaProps) (*apiservervalidation.RatchetingSchemaValidator, error) {
	s := &spec.Schema{}
	if props != nil {
		strip := apiservervalidation.StripUnsupportedFormatsPostProcessorForVersion(celbase.CompatibilityVersion())
		if err := apiservervalidation.ConvertJSONSchemaPropsWithPostProcess(props, s, strip); err != nil {
			return nil, err
		}
	}
	return apiservervalidation.NewRatchetingSchemaValidator(s, nil, "", strfmt.Default), nil
}

// GroupVersionKind is the kind objects of this version must declare: the
// group, the version and status.acceptedNames.kind.
func (v *Version) GroupVersionKind() schema.GroupVersionKind { return v.gvk }

// Namespaced reports whether the kind is namespaced.
func (v *Version) Namespaced() bool { return v.namespaced }

// Structural is the version's structural schema, with its defaults pruned
// as kube-apiserver serves them; nil when there is none. It is shared:
// callers must not modify it.
func (v *Version) Structural() *structuralschema.Structural { return v.structural }

// Scale is the version's scale subresource, nil when it has none. It is
// shared: callers must not modify it.
func (v *Version) Scale() *apiextensionsv1.CustomResourceSubresourceScale { return v.scale }

// HasStatus reports whether the version has the status subresource.
func (v *Version) HasStatus() bool { return v.status != nil }
