package definition

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// WarningsOnCreate returns the warnings kube-apiserver sends with the
// creation of crd: one per schema format it does not recognize (in schema
// order, repeats included), then one per non-scalar item type of an
// x-kubernetes-list-type set (sorted, once each).
func WarningsOnCreate(crd *apiextensionsv1.CustomResourceDefinition) []string {
	in, errs := internal(crd)
	if errs != nil {
		return nil
	}
	var out []string
	for _, f := range unrecognizedFormats(&in.Spec) {
		out = append(out, fmt.Sprintf("unrecognized format %q", f))
	}
	return append(out, setOfNonScalarsWarnings(&in.Spec)...)
}

// WarningsOnUpdate returns the warnings of WarningsOnCreate that old did
// not already deserve: only newly introduced formats and list types warn.
func WarningsOnUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) []string {
	in, errs := internal(crd)
	if errs != nil {
		return nil
	}
	inOld, errs := internal(old)
	if errs != nil {
		return nil
	}
	known := sets.New(unrecognizedFormats(&inOld.Spec)...)
	var out []string
	for _, f := range unrecognizedFormats(&in.Spec) {
		if !known.Has(f) {
			out = append(out, fmt.Sprintf("unrecognized format %q", f))
		}
	}
	seen := sets.New(setOfNonScalarsWarnings(&inOld.Spec)...)
	for _, w := range setOfNonScalarsWarnings(&in.Spec) {
		if !seen.Has(w) {
			out = append(out, w)
		}
	}
	return out
}

// schemas returns the top-level schema and the per-version ones, in the
// order kube-apiserver walks them.
func schemas(s *apiextensions.CustomResourceDefinitionSpec) []*apiextensions.JSONSchemaProps {
	var out []*apiextensions.JSONSchemaProps
	if s.Validation != nil && s.Validation.OpenAPIV3Schema != nil {
		out = append(out, s.Validation.OpenAPIV3Schema)
	}
	for _, v := range s.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			out = append(out, v.Schema.OpenAPIV3Schema)
		}
	}
	return out
}

func unrecognizedFormats(s *apiextensions.CustomResourceDefinitionSpec) []string {
	compat := environment.DefaultCompatibilityVersion()
	var out []string
	for _, root := range schemas(s) {
		crdvalidation.SchemaHas(root, func(p *apiextensions.JSONSchemaProps) bool {
			if p.Format != "" {
				sch := &spec.Schema{SchemaProps: spec.SchemaProps{Format: p.Format, Type: []string{p.Type}}}
				out = append(out, schemavalidation.GetUnrecognizedFormats(sch, compat)...)
			}
			return false
		})
	}
	return out
}

func setOfNonScalarsWarnings(s *apiextensions.CustomResourceDefinitionSpec) []string {
	seen := sets.New[string]()
	for _, root := range schemas(s) {
		crdvalidation.SchemaHas(root, func(p *apiextensions.JSONSchemaProps) bool {
			if p.XListType != nil && *p.XListType == "set" && p.Items != nil && p.Items.Schema != nil {
				switch t := p.Items.Schema.Type; t {
				case "object", "array":
					seen.Insert(fmt.Sprintf("x-kubernetes-list-type: set for items of type %q is not supported by server-side apply or CEL validation rules", t))
				}
			}
			return false
		})
	}
	return sets.List(seen)
}
