package policy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
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
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
)

var (
	podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	podGVK  = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
)

// loadYAML decodes the policies and bindings of a testdata file.
func loadYAML(t testing.TB, name string) []runtime.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []runtime.Object
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			t.Fatal(err)
		}
		var obj runtime.Object
		switch tm.Kind {
		case "ValidatingAdmissionPolicy":
			obj = &admissionregistrationv1.ValidatingAdmissionPolicy{}
		case "ValidatingAdmissionPolicyBinding":
			obj = &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		default:
			t.Fatalf("%s: unexpected kind %q", name, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatal(err)
		}
		defaults.Apply(obj)
		out = append(out, obj)
	}
	return out
}

// env is a namespace and param store for tests.
type env struct {
	namespaces map[string]*corev1.Namespace
	// objects by kind; namespaced tells the scope of each kind.
	objects    map[schema.GroupVersionKind][]runtime.Object
	namespaced map[schema.GroupVersionKind]bool
	getErr     error
}

func newEnv() *env {
	e := &env{
		namespaces: map[string]*corev1.Namespace{},
		objects:    map[schema.GroupVersionKind][]runtime.Object{},
		namespaced: map[schema.GroupVersionKind]bool{configMapGVK: true, clusterParamGVK: false},
	}
	for _, n := range []string{"default", "kube-system"} {
		e.addNamespace(n, nil)
	}
	return e
}

var (
	configMapGVK    = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	clusterParamGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Limits"}
)

func (e *env) addNamespace(name string, lbls map[string]string) {
	all := map[string]string{"kubernetes.io/metadata.name": name}
	for k, v := range lbls {
		all[k] = v
	}
	e.namespaces[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: all, UID: "uid-" + "ns"}}
}

func (e *env) add(kind schema.GroupVersionKind, obj runtime.Object) {
	e.objects[kind] = append(e.objects[kind], obj)
}

func (e *env) getNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := e.namespaces[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

func (e *env) Namespaced(kind schema.GroupVersionKind) (bool, error) {
	n, ok := e.namespaced[kind]
	if !ok {
		return false, params.ErrUnknownKind
	}
	return n, nil
}

func (e *env) Get(_ context.Context, kind schema.GroupVersionKind, namespace, name string) (runtime.Object, error) {
	if e.getErr != nil {
		return nil, e.getErr
	}
	for _, o := range e.objects[kind] {
		m, _ := meta.Accessor(o)
		if m.GetNamespace() == namespace && m.GetName() == name {
			return o, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: kind.Kind}, name)
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
	return Options{Namespaces: e.getNamespace, Params: e}
}

func newPlugin(opts Options, objs ...runtime.Object) *Plugin {
	p := New(opts)
	for _, o := range objs {
		p.Upsert(o)
	}
	return p
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"team": {"a"}}}

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
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{Containers: containers},
	}
}

// run validates a in a fresh request state.
func run(p *Plugin, a *admission.Attributes) (error, *request.State) {
	st := &request.State{}
	return p.Validate(request.WithState(context.Background(), st), a), st
}

func statusOf(t testing.TB, err error) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a StatusError", err, err)
	}
	return se
}
