package mutating

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
)

var (
	podsGVR        = policytest.PodsGVR
	podGVK         = policytest.PodGVK
	configMapGVK   = policytest.ConfigMapGVK
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	deploymentGVK  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
)

// testScheme is the server's: every built-in kind.
var testScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// decodeObjects decodes YAML documents of policies and bindings, defaulted
// as the API server stores them.
func decodeObjects(t testing.TB, docs string) []runtime.Object {
	t.Helper()
	return policytest.Decode(t, []byte(docs))
}

// podPolicy is a policy on pod creates and updates with the given spec
// fields (YAML at the indentation of spec's fields) and a binding named
// <name>-binding.
func podPolicy(name, specFields string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ` + name + `
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]
` + specFields + `
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ` + name + `-binding
spec:
  policyName: ` + name + `
`
}

// applyConfig is the mutations field of one ApplyConfiguration mutation.
func applyConfig(expr string) string {
	return `  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        ` + expr
}

// jsonPatch is the mutations field of one JSONPatch mutation.
func jsonPatch(expr string) string {
	return `  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        ` + expr
}

// env is a namespace and param store for tests, with the namespaces
// default and prod (labeled env=prod), and ConfigMaps as params.
type env = policytest.Store

func newEnv() *env {
	e := policytest.NewStore()
	e.AddNamespace("prod", map[string]string{"env": "prod"})
	return e
}

func options(e *env) Options {
	return Options{Scheme: testScheme, Namespaces: e.Namespace, Params: e}
}

// newPlugin returns a plugin with the policies and bindings of docs.
func newPlugin(t testing.TB, opts Options, docs ...string) *Plugin {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		policytest.Load(p, decodeObjects(t, d)...)
	}
	return p
}

var (
	alice      = policytest.Alice
	podRequest = policytest.PodRequest
	statusOf   = policytest.StatusOf
)

// pod returns a pod as the API server stores it: defaulted.
func pod(ns, name string, lbls map[string]string, containers ...corev1.Container) *corev1.Pod {
	p := policytest.Pod(ns, name, lbls, containers...)
	defaults.Apply(p)
	return p
}

// admit runs p on a in a fresh request state.
func admit(p *Plugin, a *admission.Attributes) (error, *request.State) {
	st := &request.State{}
	return p.Admit(request.WithState(context.Background(), st), a), st
}

// admitted runs p on a, which must be admitted, and returns the pod.
func admitted(t testing.TB, p *Plugin, a *admission.Attributes) *corev1.Pod {
	t.Helper()
	if err, _ := admit(p, a); err != nil {
		t.Fatalf("Admit: %v", err)
	}
	out, ok := a.Object.(*corev1.Pod)
	if !ok {
		t.Fatalf("object is a %T", a.Object)
	}
	return out
}

// decodePolicy returns the pod policy with the given spec fields.
func decodePolicy(t testing.TB, specFields string) *admissionregistrationv1.MutatingAdmissionPolicy {
	t.Helper()
	return decodeObjects(t, podPolicy("p", specFields))[0].(*admissionregistrationv1.MutatingAdmissionPolicy)
}
