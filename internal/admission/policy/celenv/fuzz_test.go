package celenv

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
	celbase "github.com/portcullis/portcullis/internal/cel"
)

// fuzzExpressions walk a value the ways policies do.
var fuzzExpressions = []string{
	`has(object.metadata) && has(object.metadata.labels) ? object.metadata.labels.size() >= 0 : true`,
	`has(object.spec) && has(object.spec.containers) ? object.spec.containers.all(c, !has(c.securityContext) || c.securityContext != null) : true`,
	`object.map(k, k).size() >= 0`,
	`object == oldObject`,
	`object.kind == 'Pod' && object.apiVersion == 'v1'`,
	`request.name == request.name && request.userInfo.username.size() >= 0 && request.namespace == request.namespace`,
}

// FuzzObjectVal feeds JSON to the conversions of typed and unstructured
// objects into CEL values and of requests into the request variable: they
// must not panic, and a typed object must equal its unstructured form, as
// kube-apiserver's schemaless conversion promises.
func FuzzObjectVal(f *testing.F) {
	seeds := []string{
		`{"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}}`,
		`{"metadata":{"name":"p","creationTimestamp":"2024-01-01T00:00:00Z","annotations":{"x":""}},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"100m","memory":"1Gi"}},"ports":[{"containerPort":80,"protocol":"TCP"}]}],"overhead":{"cpu":"1"}}}`,
		`{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"http","path":"/"}},"env":[{"name":"A","value":""}]}],"securityContext":{"runAsUser":0}}}`,
		`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":null}]}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"n","uid":"u","controller":true}]}}`,
		`{"spec":{"volumes":[{"name":"v","secret":{"defaultMode":420}},{"name":"w","emptyDir":{"sizeLimit":"1Mi"}}]}}`,
		`{}`,
		`[]`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "alice", "ns")
	}
	c := NewCompiler(false, nil)
	exprs := make([]*Expression, len(fuzzExpressions))
	for i, e := range fuzzExpressions {
		if exprs[i] = c.Compile(e, Decls{}, cel.BoolType); exprs[i].Err() != nil {
			f.Fatal(exprs[i].Err())
		}
	}
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	f.Fuzz(func(t *testing.T, data []byte, username, namespace string) {
		pod := &corev1.Pod{}
		if err := json.Unmarshal(data, pod); err != nil {
			return
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		if err != nil {
			return
		}
		typed := ObjectVal(pod, gvk)
		untyped := ObjectVal(&unstructured.Unstructured{Object: content}, gvk)
		if typed.Equal(untyped) != types.True || untyped.Equal(typed) != types.True {
			t.Fatalf("typed and unstructured forms differ for %s", data)
		}
		a := &admission.Attributes{Kind: gvk, Resource: gvr, Name: pod.Name, Namespace: namespace,
			Operation: admission.Create, Object: pod, UserInfo: &user.DefaultInfo{Name: username, Groups: []string{username}}}
		request := RequestVal(a, gvr, gvk)
		for _, objs := range [][2]ref.Val{{typed, untyped}, {untyped, typed}} {
			act := c.NewActivation(context.Background(), Input{Object: objs[0], OldObject: objs[1], Request: request})
			for _, e := range exprs {
				r, _, err := act.Eval(e, celbase.RuntimeCELCostBudget)
				if err == nil && r.Err == nil && r.Val != types.True {
					t.Fatalf("%s = %v for %s", e.Source, r.Val, data)
				}
			}
		}
	})
}
