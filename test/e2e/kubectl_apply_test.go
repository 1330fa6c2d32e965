package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// step runs one stage of a scenario whose later stages need the earlier
// ones, and stops the scenario at the first failing stage.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, f) {
		t.FailNow()
	}
}

// writeFile writes a manifest into the test's temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// reapplied is what kubectl apply prints for an object applied again
// without changes. A Secret written with stringData always looks changed to
// client-side apply (the server moves stringData into data), so kubectl
// says "configured", against kube-apiserver too (kubernetes/kubernetes#87736).
func reapplied(resource string) string {
	if strings.HasPrefix(resource, "secret/") {
		return "configured"
	}
	return "unchanged"
}

func TestKubectlApply(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	resources := []string{
		"namespace/shop",
		"configmap/shop-config",
		"secret/shop-secret",
		"serviceaccount/shop",
		"service/shop",
		"deployment.apps/shop",
		"role.rbac.authorization.k8s.io/shop-reader",
		"rolebinding.rbac.authorization.k8s.io/shop-reader",
	}
	withVerb := func(verb func(resource string) string) []string {
		var out []string
		for _, r := range resources {
			out = append(out, r+" "+verb(r))
		}
		return out
	}

	step(t, "create from a multi-document file", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "-f", "testdata/app.yaml")
		if want := withVerb(func(string) string { return "created" }); !slices.Equal(lines(out), want) {
			t.Errorf("kubectl apply printed\n%s\nwant\n%s", out, strings.Join(want, "\n"))
		}
		secret, err := c.CoreV1().Secrets("shop").Get(ctx, "shop-secret", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// stringData is write-only: the server merges it into data.
		if got := string(secret.Data["password"]); got != "hunter2" {
			t.Errorf("secret data.password = %q, want hunter2 (from stringData)", got)
		}
		if len(secret.StringData) != 0 {
			t.Errorf("secret still has stringData %v", secret.StringData)
		}
		cm, err := c.CoreV1().ConfigMaps("shop").Get(ctx, "shop-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; !ok {
			t.Errorf("configmap lacks the last-applied annotation: %v", cm.Annotations)
		}
		d, err := c.AppsV1().Deployments("shop").Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Generation != 1 {
			t.Errorf("new deployment has generation %d, want 1", d.Generation)
		}
	})

	step(t, "re-apply leaves everything unchanged", func(t *testing.T) {
		revisions := func() (deployment, secret string) {
			t.Helper()
			d, err := c.AppsV1().Deployments("shop").Get(ctx, "shop", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sec, err := c.CoreV1().Secrets("shop").Get(ctx, "shop-secret", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return d.ResourceVersion, sec.ResourceVersion
		}
		deployBefore, secretBefore := revisions()
		out := s.MustKubectl(t, "apply", "-f", "testdata/app.yaml")
		if want := withVerb(reapplied); !slices.Equal(lines(out), want) {
			t.Errorf("kubectl apply printed\n%s\nwant\n%s", out, strings.Join(want, "\n"))
		}
		// kube-apiserver does not write an update that changes nothing.
		deployAfter, secretAfter := revisions()
		if deployAfter != deployBefore || secretAfter != secretBefore {
			t.Errorf("a no-op apply wrote: deployment resourceVersion %s -> %s, secret %s -> %s", deployBefore, deployAfter, secretBefore, secretAfter)
		}
	})

	step(t, "apply a changed file patches what changed", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "-f", "testdata/app-v2.yaml")
		want := withVerb(func(r string) string {
			if r == "configmap/shop-config" || r == "deployment.apps/shop" {
				return "configured"
			}
			return reapplied(r)
		})
		if !slices.Equal(lines(out), want) {
			t.Errorf("kubectl apply printed\n%s\nwant\n%s", out, strings.Join(want, "\n"))
		}
		cm, err := c.CoreV1().ConfigMaps("shop").Get(ctx, "shop-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["mode"] != "green" {
			t.Errorf("configmap data = %v, want mode=green", cm.Data)
		}
		d, err := c.AppsV1().Deployments("shop").Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
			t.Errorf("replicas = %v, want 3", d.Spec.Replicas)
		}
		var images []string
		for _, ctr := range d.Spec.Template.Spec.Containers {
			images = append(images, ctr.Name+"="+ctr.Image)
		}
		// The strategic merge patch kubectl sends merges containers by name.
		if want := []string{"web=nginx:1.28", "sidecar=busybox:1.36"}; !slices.Equal(images, want) {
			t.Errorf("containers = %v, want %v", images, want)
		}
		if d.Generation != 2 {
			t.Errorf("generation after a spec change = %d, want 2", d.Generation)
		}
	})

	t.Run("an unknown field is rejected", func(t *testing.T) {
		path := writeFile(t, "typo.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: typo
  namespace: shop
spec:
  replicass: 2
  selector:
    matchLabels: {app: typo}
  template:
    metadata:
      labels: {app: typo}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`)
		_, stderr, err := s.Kubectl(t, "apply", "-f", path)
		if err == nil {
			t.Fatalf("kubectl apply of a deployment with spec.replicass succeeded")
		}
		if !strings.Contains(stderr, "replicass") {
			t.Errorf("the error does not name the unknown field:\n%s", stderr)
		}
		if _, err := c.AppsV1().Deployments("shop").Get(ctx, "typo", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the rejected deployment exists (get error %v)", err)
		}
	})

	t.Run("an invalid name is rejected with kube-apiserver's message", func(t *testing.T) {
		path := writeFile(t, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: shop\n")
		_, stderr, err := s.Kubectl(t, "apply", "-f", path)
		if err == nil {
			t.Fatalf("kubectl apply of ConfigMap Bad_Name succeeded")
		}
		// kubectl prints this line from the Status details and causes.
		want := `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr:\n%s\nwant it to contain\n%s", stderr, want)
		}
	})
}

func TestKubectlServerSideApply(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "ssa")
	manifest := func(color string) string {
		return writeFile(t, "cm-"+color+".yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: paint
  namespace: ssa
data:
  color: `+color+"\n")
	}
	owners := func(t *testing.T) map[string]string {
		t.Helper()
		cm, err := c.CoreV1().ConfigMaps("ssa").Get(ctx, "paint", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, mf := range cm.ManagedFields {
			fields := ""
			if mf.FieldsV1 != nil {
				fields = string(mf.FieldsV1.Raw)
			}
			got[mf.Manager] = string(mf.Operation) + " " + fields
		}
		return got
	}

	step(t, "apply creates with kubectl as the manager", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "--server-side", "-f", manifest("blue"))
		if strings.TrimSpace(out) != "configmap/paint serverside-applied" {
			t.Errorf("stdout = %q", out)
		}
		got := owners(t)
		if !strings.HasPrefix(got["kubectl"], "Apply ") || !strings.Contains(got["kubectl"], `"f:color"`) {
			t.Errorf("managedFields = %v, want kubectl to own f:data.f:color through Apply", got)
		}
	})

	step(t, "another manager conflicts", func(t *testing.T) {
		_, stderr, err := s.Kubectl(t, "apply", "--server-side", "--field-manager=painter", "-f", manifest("red"))
		if err == nil {
			t.Fatalf("conflicting apply succeeded")
		}
		want := `Apply failed with 1 conflict: conflict with "kubectl": .data.color`
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr:\n%s\nwant it to contain %q", stderr, want)
		}
		cm, err := c.CoreV1().ConfigMaps("ssa").Get(ctx, "paint", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["color"] != "blue" {
			t.Errorf("the rejected apply changed color to %q", cm.Data["color"])
		}
	})

	step(t, "force-conflicts takes the field over", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "--server-side", "--field-manager=painter", "--force-conflicts", "-f", manifest("red"))
		if strings.TrimSpace(out) != "configmap/paint serverside-applied" {
			t.Errorf("stdout = %q", out)
		}
		cm, err := c.CoreV1().ConfigMaps("ssa").Get(ctx, "paint", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["color"] != "red" {
			t.Errorf("color = %q, want red", cm.Data["color"])
		}
		got := owners(t)
		if !strings.Contains(got["painter"], `"f:color"`) {
			t.Errorf("painter does not own color: %v", got)
		}
		if strings.Contains(got["kubectl"], `"f:color"`) {
			t.Errorf("kubectl still owns color: %v", got)
		}
	})

	t.Run("server dry run does not persist", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "--server-side", "--field-manager=painter", "--dry-run=server", "-f", manifest("green"))
		if strings.TrimSpace(out) != "configmap/paint serverside-applied (server dry run)" {
			t.Errorf("stdout = %q", out)
		}
		cm, err := c.CoreV1().ConfigMaps("ssa").Get(ctx, "paint", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Data["color"] != "red" {
			t.Errorf("dry run changed color to %q", cm.Data["color"])
		}
	})
}
