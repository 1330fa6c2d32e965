package mutating

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/cel/mutation"

	"github.com/portcullis/portcullis/internal/admission"
)

// fuzzPod is the object the fuzz targets mutate.
func fuzzPod() *corev1.Pod {
	p := pod("default", "web", map[string]string{"app": "web"},
		corev1.Container{Name: "app", Image: "nginx", Args: []string{"-g"}, Ports: []corev1.ContainerPort{{ContainerPort: 80}}})
	p.Annotations = map[string]string{"a/b": "c"}
	return p
}

// FuzzApplyConfiguration merges arbitrary apply configurations, given as
// JSON and converted as CEL values are, into a pod: never a panic, and a
// merge that succeeds yields a pod and leaves the input alone.
func FuzzApplyConfiguration(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"labels":{"env":"prod"}}}`,
		`{"spec":{"containers":[{"name":"mesh-proxy","image":"mesh/proxy:v1"}]}}`,
		`{"spec":{"containers":[{"name":"app","args":["x"]}]}}`,
		`{"spec":{"containers":[{"name":"app"},{"name":"app"}]}}`,
		`{"spec":{"containers":[{"image":"no-name"}]}}`,
		`{"spec":{"securityContext":{"runAsUser":1000,"runAsNonRoot":true}}}`,
		`{"spec":{"nodeName":3}}`,
		`{"spec":{"priority":1.5}}`,
		`{"spec":{"volumes":[{"name":"v","configMap":{"name":"c","items":[{"key":"k","path":"p"}]}}]}}`,
		`{"metadata":{"ownerReferences":[{"uid":"u","name":"n","kind":"k","apiVersion":"v1"}]}}`,
		`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
		`{"metadata":null}`,
		`{"spec":{"containers":null}}`,
		`{"x":{"y":[[[]]]}}`,
	} {
		f.Add([]byte(seed))
	}
	p, err := New(Options{Scheme: testScheme})
	if err != nil {
		f.Fatal(err)
	}
	tc, err := p.objects.typeConverter(podGVK)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var native map[string]any
		if err := json.Unmarshal(data, &native); err != nil {
			return
		}
		patch, err := toJSONValue(types.DefaultTypeAdapter.NativeToValue(native), 0)
		if err != nil {
			return
		}
		pm, ok := patch.(map[string]any)
		if !ok {
			t.Fatalf("a JSON object converted to %T", patch)
		}
		in := fuzzPod()
		orig := in.DeepCopy()
		live, err := p.objects.content(in, podGVK)
		if err != nil {
			t.Fatal(err)
		}
		pm["apiVersion"], pm["kind"] = "v1", "Pod"
		merged, err := mergeApplyConfiguration(tc, live, pm)
		if err != nil {
			return
		}
		out, err := p.objects.object(merged, in, podGVK)
		if err != nil {
			return
		}
		if _, ok := out.(*corev1.Pod); !ok {
			t.Fatalf("merged into a %T", out)
		}
		if !equalObjects(in, orig) {
			t.Fatal("the input pod was modified")
		}
	})
}

// FuzzMutationExpression admits a pod through a policy whose mutation is
// an arbitrary expression, as an apply configuration and as a JSON patch.
func FuzzMutationExpression(f *testing.F) {
	for _, seed := range []string{
		`Object{metadata: Object.metadata{labels: {"env": "prod"}}}`,
		`Object{spec: Object.spec{containers: [Object.spec.containers{name: "mesh", image: "m"}]}}`,
		`Object{spec: Object.spec{containers: object.spec.containers}}`,
		`Object{metadata: Object.metadata{annotations: {"t": string(timestamp("2024-01-01T00:00:00Z"))}}}`,
		`Object{spec: Object.metadata{}}`,
		`[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a/b~c"), value: "v"}]`,
		`[JSONPatch{op: "test", path: "/metadata/name", value: "web"}, JSONPatch{op: "remove", path: "/spec/containers/0"}]`,
		`[JSONPatch{op: "copy", from: "/spec", path: "/metadata/annotations/x"}]`,
		`[JSONPatch{op: "move", from: "/metadata/labels", path: "/metadata/labels/app"}]`,
		`[JSONPatch{op: "add", path: "/spec/containers/-", value: b"\xff"}]`,
		`object.spec.containers.map(c, JSONPatch{op: "replace", path: "/spec/containers/0/image", value: c.image + ":latest"})`,
	} {
		f.Add(seed)
	}
	opts := options(newEnv())
	bases := [2][]runtime.Object{
		decodeObjects(f, podPolicy("p", applyConfig("Object{}"))),
		decodeObjects(f, podPolicy("p", jsonPatch("[]"))),
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for i, base := range bases {
			p, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			pol := base[0].(*admissionregistrationv1.MutatingAdmissionPolicy).DeepCopy()
			if i == 0 {
				pol.Spec.Mutations[0].ApplyConfiguration.Expression = expr
			} else {
				pol.Spec.Mutations[0].JSONPatch.Expression = expr
			}
			p.Upsert(pol)
			p.Upsert(base[1])
			in := fuzzPod()
			orig := in.DeepCopy()
			a := podRequest(admission.Create, in, nil)
			if err := p.Admit(context.Background(), a); err != nil {
				if a.Object != in {
					t.Fatal("a denied request replaced the object")
				}
			} else if _, ok := a.Object.(*corev1.Pod); !ok {
				t.Fatalf("admitted a %T", a.Object)
			}
			if !equalObjects(in, orig) {
				t.Fatal("the input pod was modified")
			}
		}
	})
}

// FuzzJSONPatch applies arbitrary operations to a pod.
func FuzzJSONPatch(f *testing.F) {
	f.Add("add", "/metadata/labels/x", "", []byte(`"v"`))
	f.Add("remove", "/spec/containers/0", "", []byte(``))
	f.Add("replace", "/spec/containers/0/ports/0/containerPort", "", []byte(`8080`))
	f.Add("copy", "/metadata/annotations/a", "/spec/containers", []byte(``))
	f.Add("move", "/spec/containers/-", "/spec/containers/0", []byte(``))
	f.Add("test", "/metadata/name", "", []byte(`"web"`))
	f.Add("add", "/spec/containers/-1", "", []byte(`{"name":"x"}`))
	f.Add("add", "/kind", "", []byte(`"Secret"`))
	f.Add("add", "", "", []byte(`{}`))
	p, err := New(Options{Scheme: testScheme})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, op, path, from string, value []byte) {
		jp := &mutation.JSONPatchVal{Op: op, Path: path, From: from}
		if len(value) > 0 {
			var native any
			if json.Unmarshal(value, &native) != nil {
				native = string(value)
			}
			jp.Val = types.DefaultTypeAdapter.NativeToValue(native)
		}
		ops, err := jsonPatchOps(types.NewRefValList(types.DefaultTypeAdapter, []ref.Val{jp}))
		if err != nil {
			return
		}
		in := fuzzPod()
		orig := in.DeepCopy()
		content, err := p.objects.content(in, podGVK)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := json.Marshal(content)
		if err != nil {
			t.Fatal(err)
		}
		out, err := applyJSONPatch(ops, doc)
		if err == nil {
			if obj, err := p.objects.decode(out, in, podGVK); err == nil {
				if _, ok := obj.(*corev1.Pod); !ok {
					t.Fatalf("decoded a %T", obj)
				}
			}
		}
		if !equalObjects(in, orig) {
			t.Fatal("the input pod was modified")
		}
	})
}
