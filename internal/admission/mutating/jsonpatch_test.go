package mutating

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestJSONPatch(t *testing.T) {
	annotated := func() *corev1.Pod {
		p := pod("default", "web", map[string]string{"app": "web"})
		p.Annotations = map[string]string{"example.com/owner": "a", "keep": "me"}
		return p
	}
	tests := []struct {
		name  string
		expr  string
		check func(t *testing.T, out *corev1.Pod)
	}{
		{
			name: "add with escaped key",
			expr: `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/tier~1"), value: "gold"}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				want := map[string]string{"app": "web", "example.com/tier~1": "gold"}
				if diff := cmp.Diff(want, out.Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "replace",
			expr: `[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "nginx:1.27"}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				if out.Spec.Containers[0].Image != "nginx:1.27" {
					t.Errorf("image = %q", out.Spec.Containers[0].Image)
				}
			},
		},
		{
			name: "remove an escaped key",
			expr: `[JSONPatch{op: "remove", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/owner")}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				if diff := cmp.Diff(map[string]string{"keep": "me"}, out.Annotations); diff != "" {
					t.Errorf("annotations (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "a test that holds lets the patch apply",
			expr: `[JSONPatch{op: "test", path: "/metadata/labels/app", value: "web"}, JSONPatch{op: "replace", path: "/metadata/labels/app", value: "api"}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				if out.Labels["app"] != "api" {
					t.Errorf("labels = %v", out.Labels)
				}
			},
		},
		{
			name: "a test that fails leaves the object as it was",
			expr: `[JSONPatch{op: "replace", path: "/metadata/labels/app", value: "api"}, JSONPatch{op: "test", path: "/metadata/labels/app", value: "db"}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				if !equalObjects(out, annotated()) {
					t.Errorf("pod changed: %+v", out.ObjectMeta)
				}
			},
		},
		{
			name: "add an object value",
			expr: `[JSONPatch{op: "add", path: "/spec/securityContext", value: Object.spec.securityContext{runAsNonRoot: true, runAsUser: 1000}}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				sc := out.Spec.SecurityContext
				if sc == nil || !*sc.RunAsNonRoot || *sc.RunAsUser != 1000 {
					t.Errorf("securityContext = %+v", sc)
				}
			},
		},
		{
			name: "append a container with a list value",
			expr: `[JSONPatch{op: "add", path: "/spec/containers/-", value: Object.spec.containers{name: "mesh-proxy", image: "mesh/proxy", args: ["a", "b"]}}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				c := out.Spec.Containers
				if len(c) != 2 || c[1].Name != "mesh-proxy" || !cmp.Equal(c[1].Args, []string{"a", "b"}) || c[1].ImagePullPolicy != corev1.PullAlways {
					t.Errorf("containers = %+v", c)
				}
			},
		},
		{
			name: "copy and move",
			expr: `[JSONPatch{op: "copy", from: "/metadata/labels/app", path: "/metadata/labels/copied"}, JSONPatch{op: "move", from: "/metadata/annotations/keep", path: "/metadata/annotations/moved"}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				if out.Labels["copied"] != "web" || out.Annotations["moved"] != "me" || out.Annotations["keep"] != "" {
					t.Errorf("metadata = %+v", out.ObjectMeta)
				}
			},
		},
		{
			name: "large integers stay exact",
			expr: `[JSONPatch{op: "add", path: "/spec/activeDeadlineSeconds", value: 9007199254740993}]`,
			check: func(t *testing.T, out *corev1.Pod) {
				if d := out.Spec.ActiveDeadlineSeconds; d == nil || *d != 9007199254740993 {
					t.Errorf("activeDeadlineSeconds = %v", d)
				}
			},
		},
		{
			name:  "no operations",
			expr:  `object.metadata.name == "other" ? [JSONPatch{op: "remove", path: "/metadata/labels"}] : []`,
			check: func(t *testing.T, out *corev1.Pod) {},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", jsonPatch(tc.expr)))
			in := annotated()
			a := podRequest(admission.Create, in, nil)
			out := admitted(t, p, a)
			if !equalObjects(in, annotated()) {
				t.Fatal("the input object was modified")
			}
			tc.check(t, out)
		})
	}
}

func TestJSONPatchErrors(t *testing.T) {
	tests := []struct {
		name     string
		expr     string
		want     string
		internal bool
	}{
		{"missing path", `[JSONPatch{op: "remove", path: "/metadata/labels/nope"}]`, "JSON Patch: error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value", false},
		{"bad op", `[JSONPatch{op: "frobnicate", path: "/metadata"}]`, "JSON Patch: Unexpected kind: frobnicate", false},
		{"unknown field", `[JSONPatch{op: "add", path: "/spec/noSuchField", value: "x"}]`, `Internal error occurred: strict decoding error: unknown field "spec.noSuchField"`, true},
		{"kind changed", `[JSONPatch{op: "replace", path: "/kind", value: "ConfigMap"}, JSONPatch{op: "remove", path: "/spec"}, JSONPatch{op: "remove", path: "/status"}]`, "JSON Patch: the patch changed the object's kind", false},
		{"jsonpatch as a value", `[JSONPatch{op: "add", path: "/metadata/labels/x", value: JSONPatch{op: "add"}}]`, "JSONPath valueExpression evaluated to a type that could not marshal to JSON", false},
		{"wrong type names", `[JSONPatch{op: "add", path: "/spec/securityContext", value: Object.spec.securityContext{seLinuxOptions: Object.spec.wrong{}}}]`, "type mismatch: unexpected type name", false},
		{"growth past the largest request", `["hostname", "nodeName", "subdomain"].map(f, JSONPatch{op: "copy", from: "/metadata/annotations/big", path: "/spec/" + f})`, "JSON Patch: patch too large: the patched object is larger than 3145728 bytes", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", jsonPatch(tc.expr)))
			in := pod("default", "web", map[string]string{"app": "web"})
			in.Annotations = map[string]string{"big": strings.Repeat("x", 1<<20)}
			a := podRequest(admission.Create, in, nil)
			err, _ := admit(p, a)
			se := statusOf(t, err)
			if !strings.Contains(se.ErrStatus.Message, tc.want) {
				t.Fatalf("message = %q, want it to contain %q", se.ErrStatus.Message, tc.want)
			}
			if tc.internal != (se.ErrStatus.Reason == metav1.StatusReasonInternalError) {
				t.Errorf("reason %q", se.ErrStatus.Reason)
			}
			if a.Object != in {
				t.Error("the object was replaced on a denied request")
			}
		})
	}
}
