package crd

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestResourcesListVersionsAsTheCRD: every resource of a CRD knows the
// served versions in the CRD's own order (the order matchPolicy
// Equivalent tries them in kube-apiserver), whatever the order they are
// served in, and carries the schema's type converter.
func TestResourcesListVersionsAsTheCRD(t *testing.T) {
	doc := strings.Replace(widgetsCRD, `  versions:
  - name: v1
    served: true
    storage: true`, `  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object}}
  - name: v0
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object}}
  - name: v1
    served: true
    storage: true`, 1)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
		t.Fatal(err)
	}
	resources, err := Resources(crd)
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, r := range resources {
		served = append(served, r.GVR.Version)
		if got := strings.Join(r.Custom.Versions, ","); got != "v1alpha1,v1" {
			t.Errorf("%s: versions %s, want the CRD's order v1alpha1,v1", r.GVR, got)
		}
		if r.Custom.TypeConverter == nil {
			t.Errorf("%s: no type converter", r.GVR)
		}
	}
	if got := strings.Join(served, ","); got != "v1,v1alpha1" {
		t.Errorf("served %s, want kube-apiserver's ranking v1,v1alpha1", got)
	}
}
