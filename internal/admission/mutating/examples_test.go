package mutating

import (
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func readExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestExamples runs the example policies of testdata/examples, which the
// end-to-end tests create through kubectl.
func TestExamples(t *testing.T) {
	e := newEnv()
	e.Add(configMapGVK, configMap("prod", "team-defaults", nil, map[string]string{"team": "payments"}))
	p := newPlugin(t, options(e), readExample(t, "label-from-configmap.yaml"), readExample(t, "mesh-sidecar.yaml"))

	t.Run("team label from the namespace's ConfigMap", func(t *testing.T) {
		out := admitted(t, p, podRequest(admission.Create, pod("prod", "web", nil), nil))
		if out.Labels["team"] != "payments" {
			t.Errorf("labels = %v", out.Labels)
		}
	})
	t.Run("no ConfigMap, no label", func(t *testing.T) {
		out := admitted(t, p, podRequest(admission.Create, pod("default", "web", nil), nil))
		if _, ok := out.Labels["team"]; ok {
			t.Errorf("labels = %v", out.Labels)
		}
	})
	t.Run("a team label is kept", func(t *testing.T) {
		out := admitted(t, p, podRequest(admission.Create, pod("prod", "web", map[string]string{"team": "search"}), nil))
		if out.Labels["team"] != "search" {
			t.Errorf("labels = %v", out.Labels)
		}
	})
	t.Run("mesh sidecar", func(t *testing.T) {
		out := admitted(t, p, podRequest(admission.Create, pod("prod", "web", map[string]string{"mesh": "enabled", "team": "search"}), nil))
		golden(t, "mesh-sidecar-pod.yaml", out)
	})
	t.Run("no sidecar without the label", func(t *testing.T) {
		out := admitted(t, p, podRequest(admission.Create, pod("prod", "web", nil), nil))
		if len(out.Spec.Containers) != 1 || out.Annotations != nil {
			t.Errorf("pod = %+v", out)
		}
	})
	t.Run("the sidecar is added once", func(t *testing.T) {
		in := pod("prod", "web", map[string]string{"mesh": "enabled"})
		a := podRequest(admission.Create, in, nil)
		admitted(t, p, a)
		out := admitted(t, p, podRequest(admission.Create, a.Object.(*corev1.Pod), nil))
		if len(out.Spec.Containers) != 2 {
			t.Errorf("containers = %+v", out.Spec.Containers)
		}
	})
}
