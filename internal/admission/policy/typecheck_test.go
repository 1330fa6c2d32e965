package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func object(props map[string]spec.Schema) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}}
}

func str() spec.Schema { return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}} }

func list(items spec.Schema, listType string, keys ...string) spec.Schema {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &items}}}
	if listType != "" {
		s.Extensions = spec.Extensions{"x-kubernetes-list-type": listType}
		if len(keys) > 0 {
			s.Extensions["x-kubernetes-list-map-keys"] = keys
		}
	}
	return s
}

type schemas map[schema.GroupVersionKind]*spec.Schema

func (s schemas) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if sc, ok := s[gvk]; ok {
		return sc, nil
	}
	return nil, fmt.Errorf("%w: %v", resolver.ErrSchemaNotFound, gvk)
}

func testTypeChecker() *TypeChecker {
	pod := object(map[string]spec.Schema{
		"metadata": object(map[string]spec.Schema{"name": str()}),
		"spec": object(map[string]spec.Schema{
			"x-prop":     str(),
			"namespace":  str(),
			"containers": list(object(map[string]spec.Schema{"name": str()}), "map", "name"),
			"finalizers": list(str(), "set"),
		}),
	})
	cm := object(map[string]spec.Schema{"data": {SchemaProps: spec.SchemaProps{Type: []string{"object"},
		AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}}}}}})
	return &TypeChecker{
		Schemas: schemas{podGVK: &pod, configMapGVK: &cm},
		KindsFor: func(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
			switch gvr {
			case podsGVR:
				return []schema.GroupVersionKind{podGVK}, nil
			case schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}:
				return []schema.GroupVersionKind{configMapGVK}, nil
			}
			return nil, errors.New("no such resource")
		},
	}
}

func TestTypeCheck(t *testing.T) {
	tc := testTypeChecker()
	tests := []struct {
		name string
		opts []policyOpt
		want []string // fieldRef=warning prefix
	}{
		{"clean", []policyOpt{validate("object.spec.x__dash__prop == 'a' && object.spec.__namespace__ == 'b' && object.spec.namespace == 'c'")}, nil},
		{"undefined field", []policyOpt{validate("object.spec.xprop == 'a'")}, []string{
			"spec.validations[0].expression=/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'xprop'\n | object.spec.xprop == 'a'\n | ...........^\n"}},
		{"wrong type", []policyOpt{validate("object.spec.x__dash__prop == 1")}, []string{"spec.validations[0].expression=/v1, Kind=Pod: ERROR: <input>:1:27: found no matching overload for '_==_' applied to '(string, int)'"}},
		{"list types", []policyOpt{validate("object.spec.containers + object.spec.containers == object.spec.containers && object.spec.finalizers == ['a']")}, nil},
		{"messageExpression", []policyOpt{withValidation(admissionregistrationv1.Validation{Expression: "true", MessageExpression: "object.spec.nope"})}, []string{
			"spec.validations[0].messageExpression=/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'nope'"}},
		{"typed variables", []policyOpt{variable("name", "object.metadata.name"), validate("variables.name == 1")}, []string{
			"spec.validations[0].expression=/v1, Kind=Pod: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(string, int)'"}},
		// As in kube-apiserver, variables of object types are dynamic.
		{"object variables are dynamic", []policyOpt{variable("cs", "object.spec.containers"), validate("variables.cs.all(c, c.image == '')")}, nil},
		{"typed params", []policyOpt{paramKind("v1", "ConfigMap"), validate("params.data.x == 1")}, []string{
			"spec.validations[0].expression=/v1, Kind=Pod: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'"}},
		{"untyped params", []policyOpt{paramKind("example.com/v1", "Limits"), validate("params.anything == 1")}, nil},
		{"authorizer variables", []policyOpt{validate("authorizer.group('apps').resource('deployments').check('update').allowed() && authorizer.requestResource.check('get').allowed() && authorizer.serviceAccount('default', 'x').group('').resource('pods').check('get').reason() != 'x'")}, nil},
		{"second validation", []policyOpt{validate("true"), validate("object.nope")}, []string{"spec.validations[1].expression=/v1, Kind=Pod: ERROR: <input>:1:7: undefined field 'nope'"}},
		{"wildcards are not checked", []policyOpt{validate("object.spec.xprop == 'a'"), constraints(matchAll())}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warnings := tc.Check(vap("p", tt.opts...))
			if len(warnings) != len(tt.want) {
				t.Fatalf("warnings %+v, want %q", warnings, tt.want)
			}
			for i, w := range warnings {
				if got := w.FieldRef + "=" + w.Warning; !strings.HasPrefix(got, tt.want[i]) {
					t.Fatalf("got  %q\nwant %q", got, tt.want[i])
				}
			}
		})
	}
	t.Run("two kinds", func(t *testing.T) {
		mr := matchAll()
		mr.ResourceRules[0].APIGroups, mr.ResourceRules[0].APIVersions = []string{""}, []string{"v1"}
		mr.ResourceRules[0].Resources = []string{"pods", "configmaps", "pods/status", "unknown"}
		w := tc.Check(vap("p", constraints(mr), validate("object.nope")))
		if len(w) != 1 || !strings.HasPrefix(w[0].Warning, "/v1, Kind=ConfigMap: ERROR") || !strings.Contains(w[0].Warning, "\n\n/v1, Kind=Pod: ERROR") {
			t.Fatalf("%+v", w)
		}
	})
	t.Run("without schemas", func(t *testing.T) {
		if w := (&TypeChecker{}).Check(vap("p", validate("object.nope"))); w != nil {
			t.Fatal(w)
		}
	})
}

func matchAll() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{"*"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}}
}
