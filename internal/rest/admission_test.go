package rest

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/crd"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
)

// recorder keeps copies of the attributes admission saw; mutate, when
// set, changes the object mutating admission is given.
type recorder struct {
	admitted, validated []*admission.Attributes
	mutate              func(a *admission.Attributes)
}

func (r *recorder) chain() *admission.Chain {
	return &admission.Chain{
		Mutators: []admission.Mutator{admission.MutatorFunc(func(_ context.Context, a *admission.Attributes) error {
			if r.mutate != nil {
				r.mutate(a)
			}
			r.admitted = append(r.admitted, snapshot(a))
			return nil
		})},
		Validators: []admission.Validator{admission.ValidatorFunc(func(_ context.Context, a *admission.Attributes) error {
			r.validated = append(r.validated, snapshot(a))
			return nil
		})},
	}
}

func snapshot(a *admission.Attributes) *admission.Attributes {
	c := *a
	if c.Object != nil {
		c.Object = c.Object.DeepCopyObject()
	}
	if c.OldObject != nil {
		c.OldObject = c.OldObject.DeepCopyObject()
	}
	return &c
}

// TestScaleAdmission follows kube-apiserver's scale storage: admission
// sees a write through /scale as the subresource, kind autoscaling/v1
// Scale; what mutating admission makes of the Scale is applied, and
// validating admission judges the Scales of the updated and the stored
// object.
func TestScaleAdmission(t *testing.T) {
	rec := &recorder{}
	ts := newTestServerWith(t, objectstest.New(t), rec.chain())
	rec.admitted, rec.validated = nil, nil // the system namespaces
	const deployments = "/apis/apps/v1/namespaces/default/deployments"
	body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,` +
		`"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	if r := ts.do("POST", deployments, mediaJSON, body); r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	rec.admitted, rec.validated = nil, nil
	rec.mutate = func(a *admission.Attributes) {
		if s, ok := a.Object.(*autoscalingv1.Scale); ok && s.Spec.Replicas == 5 {
			s.Spec.Replicas = 4 // admission lowers the requested scale
		}
	}
	if r := ts.do("PATCH", deployments+"/d/scale", mediaMergePatch, `{"spec":{"replicas":5}}`); r.code != 200 || !strings.Contains(r.body, `"replicas":4`) {
		t.Fatalf("scale: %d %s", r.code, r.body)
	}
	scaleKind := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for stage, seen := range map[string][]*admission.Attributes{"mutating": rec.admitted, "validating": rec.validated} {
		if len(seen) != 1 {
			t.Fatalf("%s admission saw %d requests, want 1", stage, len(seen))
		}
		a := seen[0]
		if a.Kind != scaleKind || a.Resource != gvr || a.Subresource != "scale" || a.RequestKind != scaleKind || a.RequestSubResource != "scale" ||
			a.Name != "d" || a.Namespace != "default" || a.Operation != admission.Update {
			t.Errorf("%s admission saw %v %v/%s %s/%s %s", stage, a.Kind, a.Resource, a.Subresource, a.Namespace, a.Name, a.Operation)
		}
		if old, ok := a.OldObject.(*autoscalingv1.Scale); !ok || old.Spec.Replicas != 1 {
			t.Errorf("%s admission's old object %#v, want the Scale of 1 replica", stage, a.OldObject)
		}
	}
	if s := rec.validated[0].Object.(*autoscalingv1.Scale); s.Spec.Replicas != 4 {
		t.Errorf("validating admission judged %d replicas, want the admitted 4", s.Spec.Replicas)
	}
	r := ts.do("GET", deployments+"/d", "", "")
	var d appsv1.Deployment
	if err := yamlToObject(r.body, &d); err != nil || d.Spec.Replicas == nil || *d.Spec.Replicas != 4 {
		t.Errorf("stored replicas: %v %s", err, r.body)
	}
}

func yamlToObject(body string, into any) error { return yaml.Unmarshal([]byte(body), into) }

// gadgetsCRD lists v1beta1 before v1: matchPolicy Equivalent tries the
// versions in this order, not in kube-apiserver's ranking.
const gadgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
  uid: uid-gadgets
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  conversion: {strategy: None}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema: &schema
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer}
    subresources: &subresources
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.replicas}
  - name: v1
    served: true
    storage: true
    schema: *schema
    subresources: *subresources
  - name: v0
    served: false
    storage: false
    schema: *schema
status:
  acceptedNames: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  storedVersions: [v1]
  conditions:
  - {type: NamesAccepted, status: "True", reason: NoConflicts, message: no conflicts found}
  - {type: Established, status: "True", reason: InitialNamesAccepted, message: the initial names have been accepted}
`

// serveCRD serves a CRD's resources from objs as the catalog would.
func serveCRD(t *testing.T, objs *objects.Objects, doc string) {
	t.Helper()
	def := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), def); err != nil {
		t.Fatal(err)
	}
	resources, err := crd.Resources(def)
	if err != nil {
		t.Fatal(err)
	}
	if err := objs.Registry().SetCustom(resources); err != nil {
		t.Fatal(err)
	}
}

func gadgets(version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "example.com", Version: version, Resource: "gadgets"}
}

// TestCustomResourceEquivalents: admission of a custom resource knows its
// other served versions, in the CRD's order, with the kinds of the
// subresources, and converts between them.
func TestCustomResourceEquivalents(t *testing.T) {
	objs := objectstest.New(t)
	serveCRD(t, objs, gadgetsCRD)
	rec := &recorder{}
	ts := newTestServerWith(t, objs, rec.chain())
	if r := ts.do("POST", "/apis/example.com/v1/namespaces/default/gadgets", mediaJSON, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}`); r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	admitted := rec.admitted[len(rec.admitted)-1]
	eq := admitted.Equivalents
	if eq == nil {
		t.Fatal("no equivalents for a custom resource")
	}
	for _, tc := range []struct {
		sub      string
		versions []string
		kind     string
	}{
		{"", []string{"v1beta1", "v1"}, "example.com/v1beta1, Kind=Gadget"},
		{"status", []string{"v1beta1", "v1"}, "example.com/v1beta1, Kind=Gadget"},
		{"scale", []string{"v1beta1", "v1"}, "autoscaling/v1, Kind=Scale"},
		{"finalize", nil, ""},
	} {
		got := eq.For(gadgets("v1"), tc.sub)
		var versions []string
		for _, e := range got {
			versions = append(versions, e.Resource.Version)
		}
		if strings.Join(versions, ",") != strings.Join(tc.versions, ",") || len(got) > 0 && got[0].Kind.String() != tc.kind {
			t.Errorf("For(v1, %q) = %v, want versions %v of kind %s", tc.sub, got, tc.versions, tc.kind)
		}
	}
	obj := admitted.Object
	conv, err := eq.Convert(context.Background(), obj, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Gadget"})
	if err != nil || conv.(*unstructured.Unstructured).GetAPIVersion() != "example.com/v1beta1" || obj.(*unstructured.Unstructured).GetAPIVersion() != "example.com/v1" {
		t.Errorf("Convert = %v, %v; the original is now %s", conv, err, obj.GetObjectKind().GroupVersionKind())
	}
	if _, err := eq.Convert(context.Background(), obj, schema.GroupVersionKind{Group: "example.com", Version: "v9", Kind: "Gadget"}); err == nil {
		t.Error("converted to a version that is not served")
	}
	if admitted.RequestKind.Version != "v1" || admitted.Kind.Version != "v1" {
		t.Errorf("kind %v request kind %v, want v1", admitted.Kind, admitted.RequestKind)
	}

	// A custom resource's /scale is admitted as a Scale too.
	if r := ts.do("PATCH", "/apis/example.com/v1beta1/namespaces/default/gadgets/g/scale", mediaMergePatch, `{"spec":{"replicas":3}}`); r.code != 200 {
		t.Fatalf("scale: %d %s", r.code, r.body)
	}
	scaled := rec.validated[len(rec.validated)-1]
	if s, ok := scaled.Object.(*autoscalingv1.Scale); !ok || s.Spec.Replicas != 3 || scaled.Resource != gadgets("v1beta1") || scaled.Subresource != "scale" || scaled.Equivalents == nil {
		t.Errorf("scale admitted as %v %v/%s: %#v", scaled.Kind, scaled.Resource, scaled.Subresource, scaled.Object)
	}
}

// TestUnknownFieldsFromMutatingAdmission follows kube-apiserver: fields a
// mutating webhook adds that the schema does not know are still seen by
// validating admission, and pruned from what is stored and answered.
func TestUnknownFieldsFromMutatingAdmission(t *testing.T) {
	objs := objectstest.New(t)
	serveCRD(t, objs, gadgetsCRD)
	rec := &recorder{mutate: func(a *admission.Attributes) {
		if u, ok := a.Object.(*unstructured.Unstructured); ok {
			_ = unstructured.SetNestedField(u.Object, "x", "spec", "unknown")
			unstructured.RemoveNestedField(u.Object, "spec", "size")
		}
	}}
	ts := newTestServerWith(t, objs, rec.chain())
	for _, dryRun := range []string{"?dryRun=All", ""} {
		r := ts.do("POST", "/apis/example.com/v1beta1/namespaces/default/gadgets"+dryRun, mediaJSON, `{"apiVersion":"example.com/v1beta1","kind":"Gadget","metadata":{"name":"g"}}`)
		if r.code != 201 {
			t.Fatalf("create%s: %d %s", dryRun, r.code, r.body)
		}
		if strings.Contains(r.body, "unknown") || !strings.Contains(r.body, `"size":1`) {
			t.Errorf("create%s answered %s, want the unknown field pruned and the default set again", dryRun, r.body)
		}
	}
	v := rec.validated[len(rec.validated)-1].Object.(*unstructured.Unstructured)
	if got, _, _ := unstructured.NestedString(v.Object, "spec", "unknown"); got != "x" {
		t.Errorf("validating admission saw %v, want the unknown field", v.Object["spec"])
	}
	if got, _, _ := unstructured.NestedInt64(v.Object, "spec", "size"); got != 1 {
		t.Errorf("validating admission saw %v, want the default set again after mutation", v.Object["spec"])
	}
	r := ts.do("GET", "/apis/example.com/v1/namespaces/default/gadgets/g", "", "")
	if strings.Contains(r.body, "unknown") {
		t.Errorf("stored: %s", r.body)
	}
}

var _ runtime.Object = (*autoscalingv1.Scale)(nil)
