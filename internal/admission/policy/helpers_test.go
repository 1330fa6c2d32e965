package policy

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
	"github.com/portcullis/portcullis/internal/request"
)

// loadYAML decodes the policies and bindings of a testdata file.
func loadYAML(t testing.TB, name string) []runtime.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return policytest.Decode(t, data)
}

// env is a namespace and param store for tests, with the namespaces
// default and kube-system, and the namespaced ConfigMap and cluster-scoped
// Limits param kinds.
type env = policytest.Store

func newEnv() *env {
	e := policytest.NewStore()
	e.AddNamespace("kube-system", nil)
	e.AddKind(clusterParamGVK, false)
	return e
}

var (
	podsGVR         = policytest.PodsGVR
	podGVK          = policytest.PodGVK
	configMapGVK    = policytest.ConfigMapGVK
	clusterParamGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Limits"}
)

func options(e *env) Options {
	return Options{Namespaces: e.Namespace, Params: e}
}

func newPlugin(opts Options, objs ...runtime.Object) *Plugin {
	return policytest.Load(New(opts), objs...)
}

var (
	podRequest = policytest.PodRequest
	pod        = policytest.Pod
	statusOf   = policytest.StatusOf
)

// run validates a in a fresh request state.
func run(p *Plugin, a *admission.Attributes) (error, *request.State) {
	st := &request.State{}
	return p.Validate(request.WithState(context.Background(), st), a), st
}
