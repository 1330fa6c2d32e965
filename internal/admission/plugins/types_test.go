package plugins

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/crd"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
)

const widgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
status:
  acceptedNames: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  storedVersions: [v1]
  conditions:
  - {type: Established, status: "True", reason: InitialNamesAccepted, message: the initial names have been accepted}
`

// TestTypeConverters: ApplyConfiguration mutations of a custom kind use
// its CRD's schema, as soon as and as long as the CRD is served.
func TestTypeConverters(t *testing.T) {
	objs := objectstest.New(t)
	types := typeConverters(objs)
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	if types(widget) != nil {
		t.Fatal("a schema for a kind no CRD serves")
	}
	if types(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) == nil {
		t.Fatal("no schema for pods")
	}
	def := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(widgetsCRD), def); err != nil {
		t.Fatal(err)
	}
	resources, err := crd.Resources(def)
	if err != nil {
		t.Fatal(err)
	}
	if err := objs.Registry().SetCustom(resources); err != nil {
		t.Fatal(err)
	}
	if got := types(widget); got == nil || got != resources[0].Custom.TypeConverter {
		t.Fatalf("Widget's converter %v, want the CRD's", got)
	}
	if err := objs.Registry().SetCustom(nil); err != nil {
		t.Fatal(err)
	}
	if types(widget) != nil {
		t.Fatal("a schema for a kind whose CRD is gone")
	}
}
