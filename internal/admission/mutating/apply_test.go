package mutating

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/defaults"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got, as YAML, with testdata/name.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	data, err := yaml.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

func TestApplyConfiguration(t *testing.T) {
	sidecar := `Object{spec: Object.spec{containers: [Object.spec.containers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0"}]}}`
	tests := []struct {
		name  string
		expr  string
		in    *corev1.Pod
		check func(t *testing.T, out *corev1.Pod)
	}{
		{
			name: "adds a label, keeps the others",
			expr: `Object{metadata: Object.metadata{labels: {"environment": "production"}}}`,
			in:   pod("default", "web", map[string]string{"app": "web"}),
			check: func(t *testing.T, out *corev1.Pod) {
				want := map[string]string{"app": "web", "environment": "production"}
				if diff := cmp.Diff(want, out.Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "adds labels to a pod without any",
			expr: `Object{metadata: Object.metadata{labels: {"environment": "production"}}}`,
			in:   pod("default", "web", nil),
			check: func(t *testing.T, out *corev1.Pod) {
				if out.Labels["environment"] != "production" {
					t.Errorf("labels = %v", out.Labels)
				}
			},
		},
		{
			name: "overwrites a label",
			expr: `Object{metadata: Object.metadata{labels: {"app": "api"}}}`,
			in:   pod("default", "web", map[string]string{"app": "web"}),
			check: func(t *testing.T, out *corev1.Pod) {
				if out.Labels["app"] != "api" {
					t.Errorf("labels = %v", out.Labels)
				}
			},
		},
		{
			name: "adds a sidecar, merging containers by name",
			expr: sidecar,
			in:   pod("default", "web", nil),
			check: func(t *testing.T, out *corev1.Pod) {
				golden(t, "sidecar.yaml", out)
			},
		},
		{
			name: "updates a sidecar already there",
			expr: sidecar,
			in:   pod("default", "web", nil, corev1.Container{Name: "app", Image: "nginx"}, corev1.Container{Name: "mesh-proxy", Image: "mesh/proxy:v0.9.0"}),
			check: func(t *testing.T, out *corev1.Pod) {
				if len(out.Spec.Containers) != 2 || out.Spec.Containers[1].Image != "mesh/proxy:v1.0.0" {
					t.Errorf("containers = %+v", out.Spec.Containers)
				}
			},
		},
		{
			name: "conditional mutation from the object",
			expr: `has(object.metadata.labels) && "tier" in object.metadata.labels ? Object{metadata: Object.metadata{annotations: {"tier-was": object.metadata.labels["tier"]}}} : Object{}`,
			in:   pod("default", "web", map[string]string{"tier": "gold"}),
			check: func(t *testing.T, out *corev1.Pod) {
				if out.Annotations["tier-was"] != "gold" {
					t.Errorf("annotations = %v", out.Annotations)
				}
			},
		},
		{
			name: "integers, booleans and nested structs",
			expr: `Object{spec: Object.spec{terminationGracePeriodSeconds: 5, enableServiceLinks: false, securityContext: Object.spec.securityContext{runAsNonRoot: true, runAsUser: 1000}}}`,
			in:   pod("default", "web", nil),
			check: func(t *testing.T, out *corev1.Pod) {
				sc := out.Spec.SecurityContext
				if *out.Spec.TerminationGracePeriodSeconds != 5 || *out.Spec.EnableServiceLinks || sc == nil || !*sc.RunAsNonRoot || *sc.RunAsUser != 1000 {
					t.Errorf("spec = %+v", out.Spec)
				}
			},
		},
		{
			name: "an empty configuration changes nothing",
			expr: `Object{}`,
			in:   pod("default", "web", map[string]string{"app": "web"}),
			check: func(t *testing.T, out *corev1.Pod) {
				if !equalObjects(out, pod("default", "web", map[string]string{"app": "web"})) {
					t.Errorf("pod changed: %+v", out)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", applyConfig(tc.expr)))
			orig := tc.in.DeepCopy()
			a := podRequest(admission.Create, tc.in, nil)
			out := admitted(t, p, a)
			if !equalObjects(orig, tc.in) {
				t.Fatal("the input object was modified")
			}
			tc.check(t, out)
		})
	}
}

// TestApplyConfigurationRefusals covers what an apply configuration may
// not do: set atomic lists, maps or structs, set fields the schema does
// not have, or mismatch its type names.
func TestApplyConfigurationRefusals(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want string
	}{
		{
			name: "atomic list in a new container",
			expr: `Object{spec: Object.spec{containers: [Object.spec.containers{name: "mesh-proxy", image: "mesh/proxy", args: ["proxy", "sidecar"]}]}}`,
			want: "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.containers[0].args",
		},
		{
			name: "several atomics, sorted",
			expr: `Object{spec: Object.spec{containers: [Object.spec.containers{name: "a", command: ["x"], args: ["y"]}]}}`,
			want: "may not mutate atomic arrays, maps or structs: .spec.containers[0].args, .spec.containers[0].command",
		},
		{
			name: "unknown field",
			expr: `Object{spec: Object.spec{noSuchField: "x"}}`,
			want: "error applying patch: failed to convert patch object to typed object: .spec.noSuchField: field not declared in schema",
		},
		{
			name: "type names must follow field names",
			expr: `Object{spec: Object.metadata{nodeName: "n"}}`,
			want: `type mismatch: unexpected type name "Object.metadata", expected "Object.spec", which matches field name path from root Object type`,
		},
		{
			name: "wrong value type",
			expr: `Object{spec: Object.spec{nodeName: 3}}`,
			want: "error applying patch: failed to convert patch object to typed object: .spec.nodeName: expected string, got &value.valueUnstructured",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", applyConfig(tc.expr)))
			in := pod("default", "web", nil)
			orig := in.DeepCopy()
			a := podRequest(admission.Create, in, nil)
			err, _ := admit(p, a)
			se := statusOf(t, err)
			prefix := "policy 'p' with binding 'p-binding' denied request: "
			if msg := se.ErrStatus.Message; !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.want) {
				t.Fatalf("message = %q, want %q after %q", msg, tc.want, prefix)
			}
			if se.ErrStatus.Code != 403 || se.ErrStatus.Reason != metav1.StatusReasonInvalid {
				t.Errorf("code %d reason %q", se.ErrStatus.Code, se.ErrStatus.Reason)
			}
			if a.Object != in || !equalObjects(orig, in) {
				t.Error("the object was changed by a denied request")
			}
		})
	}
}

// TestAtomicStruct refuses the atomic selector of a deployment, as the
// API reference describes.
func TestAtomicStruct(t *testing.T) {
	docs := strings.ReplaceAll(podPolicy("p", applyConfig(`Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"app": "web"}}}}`)),
		`    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]`, `    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]`)
	p := newPlugin(t, options(newEnv()), docs)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}},
		},
	}
	defaults.Apply(d)
	a := &admission.Attributes{Kind: deploymentGVK, Resource: deploymentsGVR, Operation: admission.Create, Name: "web", Namespace: "default", Object: d, UserInfo: alice}
	err, _ := admit(p, a)
	want := "policy 'p' with binding 'p-binding' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector"
	if se := statusOf(t, err); se.ErrStatus.Message != want {
		t.Fatalf("message = %q\nwant      %q", se.ErrStatus.Message, want)
	}
	if code := statusOf(t, err).ErrStatus.Code; code != 403 {
		t.Errorf("code %d, want 403", code)
	}
}
