package mutating

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
	"github.com/portcullis/portcullis/internal/request"
)

const widgetPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: widgets
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["widgets"]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{spec: Object.spec{color: "green"}}'
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {"seen": request.kind.version + "/" + request.requestKind.version + "/" + object.apiVersion + "/" + request.resource.version}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: widgets
spec:
  policyName: widgets
`

// TestEquivalentVersions follows kube-apiserver: a policy for v1 of a
// custom resource mutates a v2 request's object converted to v1 (its
// request variable naming v1 as kind and resource, v2 as what the client
// asked for), and the result is converted back to v2.
func TestEquivalentVersions(t *testing.T) {
	opts := options(newEnv())
	deduced := managedfields.NewDeducedTypeConverter()
	opts.TypeConverter = func(gvk schema.GroupVersionKind) managedfields.TypeConverter {
		if gvk.Group == "example.com" {
			return deduced
		}
		return nil
	}
	p := newPlugin(t, opts, widgetPolicy)
	for _, version := range []string{"v1", "v2"} {
		t.Run(version, func(t *testing.T) {
			w := &policytest.Widgets{}
			a := policytest.WidgetRequest(admission.Create, w, policytest.Widget(version, "default", "w", map[string]any{"size": int64(1)}), nil)
			if err := p.Admit(request.WithState(context.Background(), &request.State{}), a); err != nil {
				t.Fatal(err)
			}
			u := a.Object.(*unstructured.Unstructured)
			if u.GetAPIVersion() != "example.com/"+version {
				t.Errorf("mutated object in %s, want the request's %s", u.GetAPIVersion(), version)
			}
			if got, want := u.GetAnnotations()["seen"], "v1/"+version+"/example.com/v1/v1"; got != want {
				t.Errorf("the mutation saw %q, want %q", got, want)
			}
			if color, _, _ := unstructured.NestedString(u.Object, "spec", "color"); color != "green" {
				t.Errorf("spec.color = %q, want the ApplyConfiguration's green", color)
			}
		})
	}
}
