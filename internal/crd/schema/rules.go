package schema

import (
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// RuleCompileError lists the x-kubernetes-validations rules (and
// messageExpressions) of one version that do not compile, each at its
// path in the schema (openAPIV3Schema.properties[spec]
// .x-kubernetes-validations[0].rule) with the compiler's detail.
type RuleCompileError struct {
	CRD, Version string
	Errors       field.ErrorList
}

func (e *RuleCompileError) Error() string {
	return fmt.Sprintf("%s: CustomResourceDefinition %s version %s: %s", ErrRuleCompile, e.CRD, e.Version, e.Errors.ToAggregate())
}

// Is makes errors.Is(err, ErrRuleCompile) hold.
func (e *RuleCompileError) Is(target error) bool { return target == ErrRuleCompile }

var schemaPath = field.NewPath("openAPIV3Schema")

// ruleCompileErrors compiles the rules of s, node by node, exactly where
// and with the types with which cel.NewValidator compiles them (its
// results are not exported, so this is the only way to say which rule
// failed). nil when every rule compiles.
func ruleCompileErrors(s *structuralschema.Structural) field.ErrorList {
	if !hasRules(s) {
		return nil
	}
	return nodeRuleErrors(schemaPath, s, s, model.SchemaDeclType(s, true))
}

// hasRules mirrors cel.NewValidator's test: rules only under allOf do not
// count, and then none is compiled.
func hasRules(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || hasRules(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Structural) {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(&p) {
			return true
		}
	}
	return false
}

// nodeRuleErrors compiles the rules that rules holds for the value node
// (rules differs from node under allOf, whose rules apply to the
// surrounding value), then descends as cel.NewValidator does.
func nodeRuleErrors(pth *field.Path, rules, node *structuralschema.Structural, declType *apiservercel.DeclType) field.ErrorList {
	var errs field.ErrorList
	compilation := *node
	compilation.XValidations = rules.XValidations
	results, err := cel.Compile(&compilation, declType, celbase.PerCallLimit, celbase.BaseEnvSet(), cel.StoredExpressionsEnvLoader())
	if err != nil {
		errs = append(errs, field.Invalid(pth.Child("x-kubernetes-validations"), node.Type, fmt.Sprintf("rule compiler initialization error: %v", err)))
	}
	for i, r := range results {
		rule := pth.Child("x-kubernetes-validations").Index(i)
		if r.Error != nil {
			errs = append(errs, field.Invalid(rule.Child("rule"), strings.TrimSpace(rules.XValidations[i].Rule), r.Error.Detail))
		}
		if r.MessageExpressionError != nil {
			errs = append(errs, field.Invalid(rule.Child("messageExpression"), rules.XValidations[i].MessageExpression, r.MessageExpressionError.Detail))
		}
	}

	var elemType *apiservercel.DeclType
	if declType != nil {
		elemType = declType.ElemType
	}
	if rules.Items != nil && node.Items != nil {
		errs = append(errs, nodeRuleErrors(pth.Child("items"), rules.Items, node.Items, elemType)...)
	}
	for k, ruleProp := range rules.Properties {
		nodeProp, ok := node.Properties[k]
		if !ok {
			continue
		}
		var fieldType *apiservercel.DeclType
		if escaped, ok := apiservercel.Escape(k); ok {
			if declType == nil {
				continue
			}
			f, ok := declType.Fields[escaped]
			if !ok {
				// Fields of unknown type are left out of CEL altogether.
				continue
			}
			fieldType = f.Type
		} else if fieldType = model.SchemaDeclType(&nodeProp, nodeProp.XEmbeddedResource); fieldType == nil {
			continue
		}
		errs = append(errs, nodeRuleErrors(pth.Child("properties").Key(k), &ruleProp, &nodeProp, fieldType)...)
	}
	if rules.AdditionalProperties != nil && rules.AdditionalProperties.Structural != nil &&
		node.AdditionalProperties != nil && node.AdditionalProperties.Structural != nil {
		errs = append(errs, nodeRuleErrors(pth.Child("additionalProperties"), rules.AdditionalProperties.Structural, node.AdditionalProperties.Structural, elemType)...)
	}
	if rules.ValueValidation != nil {
		for i := range rules.ValueValidation.AllOf {
			errs = append(errs, nodeRuleErrors(pth.Child("allOf").Index(i), nestedRules(&rules.ValueValidation.AllOf[i]), node, declType)...)
		}
	}
	return errs
}

// nestedRules is the part of a nested value validation (under allOf)
// that can hold rules, in the structural form the compiler takes.
func nestedRules(n *structuralschema.NestedValueValidation) *structuralschema.Structural {
	if n == nil {
		return nil
	}
	s := &structuralschema.Structural{
		ValueValidation:      &n.ValueValidation,
		ValidationExtensions: n.ValidationExtensions,
		Generic:              n.ForbiddenGenerics,
		Extensions:           n.ForbiddenExtensions,
		Items:                nestedRules(n.Items),
	}
	if len(n.Properties) > 0 {
		s.Properties = make(map[string]structuralschema.Structural, len(n.Properties))
		for k := range n.Properties {
			p := n.Properties[k]
			s.Properties[k] = *nestedRules(&p)
		}
	}
	if n.AdditionalProperties != nil {
		s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: nestedRules(n.AdditionalProperties)}
	}
	return s
}
