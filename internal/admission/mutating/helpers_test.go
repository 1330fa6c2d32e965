package mutating

import (
	"context"
	"errors"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
)

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	podGVK         = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	configMapGVK   = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
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
	var out []runtime.Object
	for _, doc := range strings.Split(docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatal(err)
		}
		var obj runtime.Object
		switch tm.Kind {
		case "MutatingAdmissionPolicy":
			obj = &admissionregistrationv1.MutatingAdmissionPolicy{}
		case "MutatingAdmissionPolicyBinding":
			obj = &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
		default:
			t.Fatalf("unexpected kind %q", tm.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatal(err)
		}
		defaults.Apply(obj)
		out = append(out, obj)
	}
	return out
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

// env is a namespace and param store for tests.
type env struct {
	namespaces map[string]*corev1.Namespace
	objects    map[schema.GroupVersionKind][]runtime.Object
}

func newEnv() *env {
	e := &env{namespaces: map[string]*corev1.Namespace{}, objects: map[schema.GroupVersionKind][]runtime.Object{}}
	e.addNamespace("default", nil)
	e.addNamespace("prod", map[string]string{"env": "prod"})
	return e
}

func (e *env) addNamespace(name string, lbls map[string]string) {
	all := map[string]string{"kubernetes.io/metadata.name": name}
	for k, v := range lbls {
		all[k] = v
	}
	e.namespaces[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: all}}
}

func (e *env) add(obj runtime.Object) {
	e.objects[configMapGVK] = append(e.objects[configMapGVK], obj)
}

func (e *env) getNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := e.namespaces[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

func (e *env) Namespaced(kind schema.GroupVersionKind) (bool, error) {
	if kind != configMapGVK {
		return false, params.ErrUnknownKind
	}
	return true, nil
}

func (e *env) Get(_ context.Context, kind schema.GroupVersionKind, namespace, name string) (runtime.Object, error) {
	for _, o := range e.objects[kind] {
		m, _ := meta.Accessor(o)
		if m.GetNamespace() == namespace && m.GetName() == name {
			return o, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (e *env) List(_ context.Context, kind schema.GroupVersionKind, namespace string, sel labels.Selector) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, o := range e.objects[kind] {
		m, _ := meta.Accessor(o)
		if (namespace == "" || m.GetNamespace() == namespace) && sel.Matches(labels.Set(m.GetLabels())) {
			out = append(out, o)
		}
	}
	return out, nil
}

func (e *env) options() Options {
	return Options{Scheme: testScheme, Namespaces: e.getNamespace, Params: e}
}

// newPlugin returns a plugin with the policies and bindings of docs.
func newPlugin(t testing.TB, opts Options, docs ...string) *Plugin {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		for _, o := range decodeObjects(t, d) {
			p.Upsert(o)
		}
	}
	return p
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"}}

// podRequest returns the attributes of a pod write.
func podRequest(op admission.Operation, pod, old *corev1.Pod) *admission.Attributes {
	a := &admission.Attributes{
		Kind: podGVK, Resource: podsGVR, RequestKind: podGVK, RequestResource: podsGVR,
		Operation: op, UserInfo: alice,
	}
	if pod != nil {
		a.Object = pod
		a.Name, a.Namespace = pod.Name, pod.Namespace
	}
	if old != nil {
		a.OldObject = old
		a.Name, a.Namespace = old.Name, old.Namespace
	}
	return a
}

func pod(ns, name string, lbls map[string]string, containers ...corev1.Container) *corev1.Pod {
	if len(containers) == 0 {
		containers = []corev1.Container{{Name: "app", Image: "nginx"}}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{Containers: containers},
	}
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

func statusOf(t testing.TB, err error) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a StatusError", err, err)
	}
	return se
}

// decodePolicy returns the pod policy with the given spec fields.
func decodePolicy(t testing.TB, specFields string) *admissionregistrationv1.MutatingAdmissionPolicy {
	t.Helper()
	return decodeObjects(t, podPolicy("p", specFields))[0].(*admissionregistrationv1.MutatingAdmissionPolicy)
}
