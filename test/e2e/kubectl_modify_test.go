package e2e

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func TestKubectlPatch(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "patch")
	s.MustKubectl(t, "create", "configmap", "p", "-n", "patch", "--from-literal=a=1", "--from-literal=b=1")
	data := func(t *testing.T) map[string]string {
		t.Helper()
		cm, err := c.CoreV1().ConfigMaps("patch").Get(ctx, "p", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Data
	}

	tests := []struct {
		name, patchType, patch string
		want                   map[string]string
	}{
		{"json", "json", `[{"op":"replace","path":"/data/a","value":"2"},{"op":"remove","path":"/data/b"}]`, map[string]string{"a": "2"}},
		{"merge", "merge", `{"data":{"c":"3","a":null}}`, map[string]string{"c": "3"}},
		{"strategic", "strategic", `{"data":{"d":"4"}}`, map[string]string{"c": "3", "d": "4"}},
	}
	for _, tt := range tests {
		step(t, tt.name, func(t *testing.T) {
			out := s.MustKubectl(t, "patch", "configmap", "p", "-n", "patch", "--type", tt.patchType, "-p", tt.patch)
			if strings.TrimSpace(out) != "configmap/p patched" {
				t.Errorf("stdout = %q, want configmap/p patched", out)
			}
			if got := data(t); !maps.Equal(got, tt.want) {
				t.Errorf("data = %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("a failing json-patch test changes nothing", func(t *testing.T) {
		before := data(t)
		_, stderr, err := s.Kubectl(t, "patch", "configmap", "p", "-n", "patch", "--type", "json",
			"-p", `[{"op":"test","path":"/data/c","value":"nope"},{"op":"remove","path":"/data/c"}]`)
		if err == nil {
			t.Fatalf("patch with a failing test op succeeded")
		}
		// kube-apiserver v1.37.2's words for a JSON patch that cannot apply.
		if want := "The request is invalid: the server rejected our request due to an error in our request"; strings.TrimSpace(stderr) != want {
			t.Errorf("stderr = %q, want %q", stderr, want)
		}
		if got := data(t); !maps.Equal(got, before) {
			t.Errorf("data changed to %v", got)
		}
	})

	t.Run("strategic merges lists by key, merge replaces them", func(t *testing.T) {
		s.MustKubectl(t, "apply", "-f", "testdata/app.yaml")
		containers := func(t *testing.T) []string {
			t.Helper()
			d, err := c.AppsV1().Deployments("shop").Get(ctx, "shop", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ctr := range d.Spec.Template.Spec.Containers {
				got = append(got, ctr.Name+"="+ctr.Image)
			}
			return got
		}
		patch := `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.29"}]}}}}`
		s.MustKubectl(t, "patch", "deployment", "shop", "-n", "shop", "-p", patch) // strategic is kubectl's default
		if got, want := containers(t), []string{"web=nginx:1.29", "sidecar=busybox:1.36"}; !slices.Equal(got, want) {
			t.Errorf("after a strategic patch: %v, want %v", got, want)
		}
		s.MustKubectl(t, "patch", "deployment", "shop", "-n", "shop", "--type", "merge", "-p", patch)
		if got, want := containers(t), []string{"web=nginx:1.29"}; !slices.Equal(got, want) {
			t.Errorf("after a merge patch: %v, want %v", got, want)
		}
	})

	t.Run("scale", func(t *testing.T) {
		out := s.MustKubectl(t, "scale", "deployment", "shop", "-n", "shop", "--replicas=5")
		if strings.TrimSpace(out) != "deployment.apps/shop scaled" {
			t.Errorf("stdout = %q", out)
		}
		d, err := c.AppsV1().Deployments("shop").Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 5 {
			t.Errorf("replicas = %v, want 5", d.Spec.Replicas)
		}
	})
}

func TestKubectlLabelAnnotate(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, withoutRootCA)
	createNamespace(t, s.Client(t), "meta")
	s.MustKubectl(t, "create", "configmap", "l", "-n", "meta")
	s.MustKubectl(t, "create", "configmap", "plain", "-n", "meta")
	get := func(t *testing.T, selector string) []string {
		t.Helper()
		return lines(s.MustKubectl(t, "get", "configmaps", "-n", "meta", "-l", selector, "-o", "name"))
	}
	expect := func(t *testing.T, out, want string) {
		t.Helper()
		if strings.TrimSpace(out) != want {
			t.Errorf("stdout = %q, want %q", out, want)
		}
	}

	step(t, "label", func(t *testing.T) {
		expect(t, s.MustKubectl(t, "label", "configmap", "l", "-n", "meta", "env=prod"), "configmap/l labeled")
		if got := get(t, "env=prod"); !slices.Equal(got, []string{"configmap/l"}) {
			t.Errorf("-l env=prod: %q", got)
		}
	})
	step(t, "relabel needs --overwrite", func(t *testing.T) {
		_, stderr, err := s.Kubectl(t, "label", "configmap", "l", "-n", "meta", "env=dev")
		if err == nil || !strings.Contains(stderr, "'env' already has a value (prod), and --overwrite is false") {
			t.Errorf("err %v, stderr %q", err, stderr)
		}
		expect(t, s.MustKubectl(t, "label", "configmap", "l", "-n", "meta", "env=dev", "--overwrite"), "configmap/l labeled")
		if got := get(t, "env in (dev,test)"); !slices.Equal(got, []string{"configmap/l"}) {
			t.Errorf("-l 'env in (dev,test)': %q", got)
		}
		if got := get(t, "!env"); !slices.Equal(got, []string{"configmap/plain"}) {
			t.Errorf("-l '!env': %q", got)
		}
	})
	step(t, "unlabel", func(t *testing.T) {
		expect(t, s.MustKubectl(t, "label", "configmap", "l", "-n", "meta", "env-"), "configmap/l unlabeled")
		if got := get(t, "env"); len(got) != 0 {
			t.Errorf("-l env after removing it: %q", got)
		}
	})
	step(t, "annotate", func(t *testing.T) {
		expect(t, s.MustKubectl(t, "annotate", "configmap", "l", "-n", "meta", "note=hello world"), "configmap/l annotated")
		expect(t, s.MustKubectl(t, "get", "configmap", "l", "-n", "meta", "-o", "jsonpath={.metadata.annotations.note}"), "hello world")
		expect(t, s.MustKubectl(t, "annotate", "configmap", "l", "-n", "meta", "note-"), "configmap/l annotated")
		expect(t, s.MustKubectl(t, "get", "configmap", "l", "-n", "meta", "-o", "jsonpath={.metadata.annotations}"), "")
	})
}

func TestKubectlDelete(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "del")
	for _, name := range []string{"a", "b", "c"} {
		s.MustKubectl(t, "create", "configmap", name, "-n", "del")
	}
	s.MustKubectl(t, "label", "configmap", "b", "c", "-n", "del", "group=bc")
	exists := func(name string) bool {
		_, err := c.CoreV1().ConfigMaps("del").Get(ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("get %s: %v", name, err)
		}
		return err == nil
	}

	t.Run("server dry run keeps the object", func(t *testing.T) {
		out := s.MustKubectl(t, "delete", "configmap", "a", "-n", "del", "--dry-run=server")
		if want := `configmap "a" deleted from del namespace (server dry run)`; strings.TrimSpace(out) != want {
			t.Errorf("stdout = %q, want %q", out, want)
		}
		if !exists("a") {
			t.Errorf("dry-run delete removed the configmap")
		}
	})
	t.Run("by name", func(t *testing.T) {
		out := s.MustKubectl(t, "delete", "configmap", "a", "-n", "del")
		if want := `configmap "a" deleted from del namespace`; strings.TrimSpace(out) != want {
			t.Errorf("stdout = %q, want %q", out, want)
		}
		if exists("a") {
			t.Errorf("configmap a still exists")
		}
	})
	t.Run("a missing object", func(t *testing.T) {
		_, stderr, err := s.Kubectl(t, "delete", "configmap", "a", "-n", "del")
		if want := `Error from server (NotFound): configmaps "a" not found`; err == nil || strings.TrimSpace(stderr) != want {
			t.Errorf("err %v, stderr %q, want %q", err, stderr, want)
		}
	})
	t.Run("by label", func(t *testing.T) {
		out := s.MustKubectl(t, "delete", "configmaps", "-n", "del", "-l", "group=bc")
		want := []string{`configmap "b" deleted from del namespace`, `configmap "c" deleted from del namespace`}
		if got := lines(out); !sameSet(got, want) {
			t.Errorf("stdout = %q, want %q", got, want)
		}
		if exists("b") || exists("c") {
			t.Errorf("labelled configmaps still exist")
		}
	})
	t.Run("cluster-scoped", func(t *testing.T) {
		s.MustKubectl(t, "create", "clusterrole", "doomed", "--verb=get", "--resource=pods")
		out := s.MustKubectl(t, "delete", "clusterrole", "doomed")
		if want := `clusterrole.rbac.authorization.k8s.io "doomed" deleted`; strings.TrimSpace(out) != want {
			t.Errorf("stdout = %q, want %q", out, want)
		}
	})
}

func TestKubectlCreateDryRun(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	createNamespace(t, c, "dry")

	out := s.MustKubectl(t, "create", "configmap", "dry", "-n", "dry", "--from-literal=a=b", "--dry-run=server")
	if want := "configmap/dry created (server dry run)"; strings.TrimSpace(out) != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	out = s.MustKubectl(t, "create", "configmap", "dry", "-n", "dry", "--from-literal=a=b", "--dry-run=server", "-o", "jsonpath={.metadata.name} {.data.a} {.metadata.creationTimestamp}")
	if f := strings.Fields(out); len(f) != 3 || f[0] != "dry" || f[1] != "b" {
		t.Errorf("dry-run object = %q, want name dry, data b and a creationTimestamp", out)
	}
	if _, err := c.CoreV1().ConfigMaps("dry").Get(context.Background(), "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after a dry-run create: %v, want NotFound", err)
	}
	// The name is still free: a real create succeeds.
	if out := s.MustKubectl(t, "create", "configmap", "dry", "-n", "dry"); strings.TrimSpace(out) != "configmap/dry created" {
		t.Errorf("stdout = %q", out)
	}
	_, stderr, err := s.Kubectl(t, "create", "configmap", "dry", "-n", "dry")
	if want := `error: failed to create configmap: configmaps "dry" already exists`; err == nil || strings.TrimSpace(stderr) != want {
		t.Errorf("second create: err %v, stderr %q, want %q", err, stderr, want)
	}
}
