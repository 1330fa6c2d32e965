package mutating

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// TestJSONValues converts CEL values of JSON patch operations to JSON.
func TestJSONValues(t *testing.T) {
	tests := []struct {
		value, want, wantErr string
	}{
		{`"s"`, `"s"`, ""},
		{`1`, `1`, ""},
		{`-9223372036854775808`, `-9223372036854775808`, ""},
		{`18446744073709551615u`, ``, "integer 18446744073709551615 out of range"},
		{`7u`, `7`, ""},
		{`1.5`, `1.5`, ""},
		{`double("NaN")`, ``, "cannot be represented in JSON"},
		{`true`, `true`, ""},
		{`null`, `null`, ""},
		{`b"hi"`, `"aGk="`, ""},
		{`timestamp("2024-01-02T03:04:05Z")`, `"2024-01-02T03:04:05Z"`, ""},
		{`duration("90s")`, `"90s"`, ""},
		{`[1, 2]`, `[1,2]`, ""},
		{`[]`, `[]`, ""},
		{`{"a": [{"b": 1}]}`, `{"a":[{"b":1}]}`, ""},
		{`{1: "x"}`, ``, "map key 1 is of type int, not string"},
		{`[Object.spec.containers{name: "a", ports: [Object.spec.containers.ports{containerPort: 80}]}]`, `[{"name":"a","ports":[{"containerPort":80}]}]`, ""},
		{`Object.metadata{labels: {"a": "b"}, annotations: object.metadata.labels}`, `{"annotations":{"app":"web"},"labels":{"a":"b"}}`, ""},
		{`object.spec.containers[0].resources`, `{}`, ""},
		{`oldObject`, `null`, ""},
		{`namespaceObject.metadata.labels`, `{"kubernetes.io/metadata.name":"default"}`, ""},
		{`request.userInfo`, `{"extra":{"team":["a"]},"groups":["dev","system:authenticated"],"uid":"u-1","username":"alice"}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			pol := compilePolicy(decodePolicy(t, jsonPatch(`[JSONPatch{op: "add", path: "/x", value: `+tc.value+`}]`)))
			m := pol.mutations[0]
			if err := m.expr.Err(); err != nil {
				t.Fatal(err)
			}
			a := podRequest("CREATE", pod("default", "web", map[string]string{"app": "web"}), nil)
			r := &review{ctx: context.Background(), p: newPlugin(t, options(newEnv())), a: a, own: view{a: a, values: celenv.NewValues(a, nil)}}
			ns, _ := newEnv().Namespace(context.Background(), "default")
			r.own.values.SetNamespace(ns)
			content, err := r.p.objects.content(a.Object, podGVK)
			if err != nil {
				t.Fatal(err)
			}
			in, err := r.mutationInput(&r.own, &invocation{policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			in.Object = valueOf(content)
			v, err := pol.Compiler.NewActivation(context.Background(), in).EvalValue(m.expr, 1_000_000)
			if err != nil {
				t.Fatal(err)
			}
			ops, err := jsonPatchOps(v)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(*ops[0]["value"]); got != tc.want {
				t.Errorf("value = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestContentIsACopy: the content mutations patch never aliases the
// admitted object, typed or unstructured.
func TestContentIsACopy(t *testing.T) {
	p := newPlugin(t, options(newEnv()))
	in := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"x": "y"}}}
	c, err := p.objects.content(in, podGVK)
	if err != nil {
		t.Fatal(err)
	}
	c["metadata"].(map[string]any)["labels"].(map[string]any)["x"] = "changed"
	if in.Labels["x"] != "y" || in.Kind != "" {
		t.Fatalf("input changed: %+v", in)
	}
	if c["kind"] != "Pod" || c["apiVersion"] != "v1" {
		t.Errorf("content kind %v %v", c["apiVersion"], c["kind"])
	}
}
