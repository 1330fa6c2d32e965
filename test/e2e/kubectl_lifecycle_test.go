package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

const testFinalizer = "e2e.portcullis.dev/hold"

func TestKubectlFinalizersAndWait(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "fin")
	path := writeFile(t, "held.yaml", fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: fin
  finalizers: [%q]
data:
  k: v
`, testFinalizer))
	s.MustKubectl(t, "apply", "-f", path)

	step(t, "delete sets deletionTimestamp and keeps the object", func(t *testing.T) {
		out := s.MustKubectl(t, "delete", "configmap", "held", "-n", "fin", "--wait=false")
		if want := `configmap "held" deleted from fin namespace`; strings.TrimSpace(out) != want {
			t.Errorf("stdout = %q, want %q", out, want)
		}
		cm, err := c.CoreV1().ConfigMaps("fin").Get(ctx, "held", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("object with a finalizer is gone after delete: %v", err)
		}
		if cm.DeletionTimestamp == nil {
			t.Errorf("deletionTimestamp not set")
		}
		if !slices.Equal(cm.Finalizers, []string{testFinalizer}) {
			t.Errorf("finalizers = %v", cm.Finalizers)
		}
	})

	step(t, "a terminating object accepts no new finalizers", func(t *testing.T) {
		_, stderr, err := s.Kubectl(t, "patch", "configmap", "held", "-n", "fin", "--type=json",
			"-p", `[{"op":"add","path":"/metadata/finalizers/-","value":"e2e.portcullis.dev/another"}]`)
		if want := "no new finalizers can be added if the object is being deleted"; err == nil || !strings.Contains(stderr, want) {
			t.Errorf("adding a finalizer to an object being deleted: err %v, stderr %q, want %q", err, stderr, want)
		}
	})

	step(t, "wait --for=delete returns once the finalizer is removed", func(t *testing.T) {
		// -v=6 logs each request; the finalizer goes only once kubectl watches.
		w := startKubectl(t, s, "wait", "--for=delete", "configmap/held", "-n", "fin", "--timeout=60s", "-v=6")
		w.waitStderr(t, "watch=true")
		s.MustKubectl(t, "patch", "configmap", "held", "-n", "fin", "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		if got := w.next(t); got != "configmap/held condition met" {
			t.Errorf("kubectl wait printed %q", got)
		}
		if err := w.wait(t); err != nil {
			t.Errorf("kubectl wait: %v\n%s", err, w.stderr)
		}
		if _, err := c.CoreV1().ConfigMaps("fin").Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after the last finalizer went: %v, want NotFound", err)
		}
	})
}

func TestKubectlNamespaces(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()

	t.Run("the system namespaces exist", func(t *testing.T) {
		header, rows := table(t, s.MustKubectl(t, "get", "namespaces"))
		if want := []string{"NAME", "STATUS", "AGE"}; !slices.Equal(header, want) {
			t.Errorf("header = %q, want %q", header, want)
		}
		for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
			if r := row(t, rows, ns); len(r) < 2 || r[1] != "Active" {
				t.Errorf("row %q, want %s Active", r, ns)
			}
		}
	})

	t.Run("a namespaced object needs its namespace", func(t *testing.T) {
		_, stderr, err := s.Kubectl(t, "create", "configmap", "x", "-n", "missing")
		if want := `error: failed to create configmap: namespaces "missing" not found`; err == nil || strings.TrimSpace(stderr) != want {
			t.Errorf("err %v, stderr %q, want %q", err, stderr, want)
		}
	})

	t.Run("deleting a namespace removes its contents", func(t *testing.T) {
		s.MustKubectl(t, "apply", "-f", "testdata/app.yaml")
		out := s.MustKubectl(t, "delete", "namespace", "shop", "--timeout=60s")
		if want := `namespace "shop" deleted`; strings.TrimSpace(out) != want {
			t.Errorf("stdout = %q, want %q", out, want)
		}
		if _, err := c.CoreV1().Namespaces().Get(ctx, "shop", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get namespace after delete: %v, want NotFound", err)
		}
		// Every namespace gets the root CA publisher's kube-root-ca.crt,
		// the re-created one too; only the application's count.
		notRootCA := metav1.ListOptions{FieldSelector: "metadata.name!=kube-root-ca.crt"}
		cms, err := c.CoreV1().ConfigMaps("shop").List(ctx, notRootCA)
		if err != nil || len(cms.Items) != 0 {
			t.Errorf("configmaps left in the deleted namespace: %v (err %v)", names(cms.Items), err)
		}
		deps, err := c.AppsV1().Deployments("shop").List(ctx, metav1.ListOptions{})
		if err != nil || len(deps.Items) != 0 {
			t.Errorf("%d deployments left in the deleted namespace (err %v)", len(deps.Items), err)
		}
		roles, err := c.RbacV1().Roles("shop").List(ctx, metav1.ListOptions{})
		if err != nil || len(roles.Items) != 0 {
			t.Errorf("%d roles left in the deleted namespace (err %v)", len(roles.Items), err)
		}
		// Re-creating the namespace must not resurrect anything.
		createNamespace(t, c, "shop")
		if cms, err := c.CoreV1().ConfigMaps("shop").List(ctx, notRootCA); err != nil || len(cms.Items) != 0 {
			t.Errorf("re-created namespace holds configmaps %v (err %v)", names(cms.Items), err)
		}
	})

	t.Run("a terminating namespace refuses new content", func(t *testing.T) {
		createNamespace(t, c, "held")
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "blocker", Finalizers: []string{testFinalizer}}}
		if _, err := c.CoreV1().ConfigMaps("held").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		s.MustKubectl(t, "delete", "namespace", "held", "--wait=false")
		eventually(t, "namespace held is Terminating", func() error {
			ns, err := c.CoreV1().Namespaces().Get(ctx, "held", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
				return fmt.Errorf("deletionTimestamp %v, phase %q", ns.DeletionTimestamp, ns.Status.Phase)
			}
			return nil
		})
		_, err := c.CoreV1().ConfigMaps("held").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "unable to create new content in namespace held because it is being terminated") {
			t.Errorf("create in a terminating namespace: %v, want Forbidden: unable to create new content in namespace held because it is being terminated", err)
		}
		_, rows := table(t, s.MustKubectl(t, "get", "namespace", "held"))
		if r := row(t, rows, "held"); len(r) < 2 || r[1] != "Terminating" {
			t.Errorf("kubectl get namespace held: %q, want STATUS Terminating", r)
		}
		s.MustKubectl(t, "patch", "configmap", "blocker", "-n", "held", "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		eventually(t, "namespace held is gone", func() error {
			_, err := c.CoreV1().Namespaces().Get(ctx, "held", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (err %v)", err)
		})
	})
}

func names(cms []corev1.ConfigMap) []string {
	var out []string
	for _, cm := range cms {
		out = append(out, cm.Name)
	}
	return out
}
