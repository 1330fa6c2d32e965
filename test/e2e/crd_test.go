package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

var crontabs = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}

// TestCustomResources drives a CRD's life with kubectl as a user would:
// define it, wait until it is established, create, validate, print,
// patch, scale and update the status of its objects, and delete it with
// its objects.
func TestCustomResources(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	dyn := dynamic.NewForConfigOrDie(s.RESTConfig(t))
	ctx := context.Background()
	createNamespace(t, c, "crontabs")

	step(t, "define and wait until established", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "-f", "testdata/crd/crontab-crd.yaml")
		if want := "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created"; strings.TrimSpace(out) != want {
			t.Errorf("kubectl apply printed %q, want %q", out, want)
		}
		s.MustKubectl(t, "wait", "--for", "condition=established", "--timeout=60s", "crd/crontabs.stable.example.com")
		// Discovery follows: kubectl resolves the short name.
		eventually(t, "the short name in discovery", func() error {
			_, errOut, err := s.Kubectl(t, "get", "ct", "-n", "crontabs")
			if err != nil {
				return fmt.Errorf("%v: %s", err, errOut)
			}
			return nil
		})
	})

	step(t, "create with defaults", func(t *testing.T) {
		out := s.MustKubectl(t, "apply", "-f", "testdata/crd/crontab.yaml")
		if want := "crontab.stable.example.com/my-new-cron-object created"; strings.TrimSpace(out) != want {
			t.Errorf("kubectl apply printed %q, want %q", out, want)
		}
		got := s.MustKubectl(t, "get", "crontab", "my-new-cron-object", "-n", "crontabs", "-o", "jsonpath={.spec.replicas} {.metadata.generation}")
		if got != "1 1" {
			t.Errorf("replicas and generation = %q, want the schema's default 1 and generation 1", got)
		}
		out = s.MustKubectl(t, "apply", "-f", "testdata/crd/crontab.yaml")
		if want := "crontab.stable.example.com/my-new-cron-object unchanged"; strings.TrimSpace(out) != want {
			t.Errorf("kubectl apply again printed %q, want %q", out, want)
		}
	})

	step(t, "printer columns and categories", func(t *testing.T) {
		header, rows := table(t, s.MustKubectl(t, "get", "crontabs", "-n", "crontabs"))
		if want := []string{"NAME", "SPEC", "REPLICAS", "AGE"}; strings.Join(header, "|") != strings.Join(want, "|") {
			t.Errorf("header %q, want %q", header, want)
		}
		r := row(t, rows, "my-new-cron-object")
		if r[1] != "* * * * */5" || r[2] != "1" {
			t.Errorf("row %q, want the cron spec and 1 replica", r)
		}
		out := s.MustKubectl(t, "get", "all", "-n", "crontabs")
		if !strings.Contains(out, "crontab.stable.example.com/my-new-cron-object") {
			t.Errorf("kubectl get all does not list the crontab (category all):\n%s", out)
		}
	})

	step(t, "schema validation", func(t *testing.T) {
		_, errOut, err := s.Kubectl(t, "apply", "-f", "testdata/crd/crontab-invalid.yaml")
		if err == nil {
			t.Fatal("an invalid crontab was accepted")
		}
		for _, want := range []string{
			`The CronTab "bad-cron" is invalid`,
			`spec.cronSpec: Invalid value: "every minute": spec.cronSpec in body should match`,
			`spec.image: Invalid value: more than 5 replicas need an image from registry.example.com`,
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("kubectl said\n%s\nwant it to contain %q", errOut, want)
			}
		}
		_, errOut, err = s.Kubectl(t, "create", "-f", "testdata/crd/crontab-unknown.yaml", "--validate=strict")
		if err == nil || !strings.Contains(errOut, `unknown field "spec.colour"`) {
			t.Errorf("strict create of an unknown field: err %v, kubectl said %s", err, errOut)
		}
	})

	step(t, "patch", func(t *testing.T) {
		s.MustKubectl(t, "patch", "crontab", "my-new-cron-object", "-n", "crontabs", "--type=merge", "-p", `{"spec":{"image":"my-new-image"}}`)
		got := s.MustKubectl(t, "get", "crontab", "my-new-cron-object", "-n", "crontabs", "-o", "jsonpath={.spec.image} {.metadata.generation}")
		if got != "my-new-image 2" {
			t.Errorf("image and generation after a merge patch = %q, want my-new-image 2", got)
		}
		_, errOut, err := s.Kubectl(t, "patch", "crontab", "my-new-cron-object", "-n", "crontabs", "--type=strategic", "-p", `{"spec":{"image":"x"}}`)
		if err == nil || !strings.Contains(errOut, "the body of the request was in an unknown format") {
			t.Errorf("a strategic merge patch of a custom resource: err %v, kubectl said %s", err, errOut)
		}
	})

	step(t, "status and scale subresources", func(t *testing.T) {
		cur, err := dyn.Resource(crontabs).Namespace("crontabs").Get(ctx, "my-new-cron-object", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(cur.Object, int64(1), "status", "replicas"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(cur.Object, "app=cron", "status", "labelSelector"); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(crontabs).Namespace("crontabs").UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("updating status: %v", err)
		}
		out := s.MustKubectl(t, "scale", "crontab", "my-new-cron-object", "-n", "crontabs", "--replicas=3")
		if want := "crontab.stable.example.com/my-new-cron-object scaled"; strings.TrimSpace(out) != want {
			t.Errorf("kubectl scale printed %q, want %q", out, want)
		}
		got := s.MustKubectl(t, "get", "crontab", "my-new-cron-object", "-n", "crontabs", "-o", "jsonpath={.spec.replicas} {.status.replicas} {.status.labelSelector}")
		if got != "3 1 app=cron" {
			t.Errorf("spec and status after scaling = %q, want 3 1 app=cron", got)
		}
		raw := s.MustKubectl(t, "get", "--raw", "/apis/stable.example.com/v1/namespaces/crontabs/crontabs/my-new-cron-object/scale")
		if !strings.Contains(raw, `"selector":"app=cron"`) || !strings.Contains(raw, `"kind":"Scale"`) {
			t.Errorf("scale subresource: %s", raw)
		}
	})

	step(t, "a client-go controller reconciles status", func(t *testing.T) {
		// A dynamic informer (list, then watch) feeds a reconciler that
		// copies spec.replicas to status.replicas, as operators do.
		ctx, cancel := context.WithCancel(ctx)
		factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, "crontabs", nil)
		// Shutdown waits for the informers, which stop when ctx ends.
		defer func() { cancel(); factory.Shutdown() }()
		informer := factory.ForResource(crontabs).Informer()
		reconcile := func(obj any) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return
			}
			spec, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
			status, _, _ := unstructured.NestedInt64(u.Object, "status", "replicas")
			if spec == status {
				return
			}
			u = u.DeepCopy()
			_ = unstructured.SetNestedField(u.Object, spec, "status", "replicas")
			// A conflict is retried by the next event, as in controllers.
			_, _ = dyn.Resource(crontabs).Namespace(u.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{})
		}
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    reconcile,
			UpdateFunc: func(_, obj any) { reconcile(obj) },
		}); err != nil {
			t.Fatal(err)
		}
		factory.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
			t.Fatal("the informer did not sync")
		}
		s.MustKubectl(t, "scale", "crontab", "my-new-cron-object", "-n", "crontabs", "--replicas=4")
		eventually(t, "the controller's status", func() error {
			got := s.MustKubectl(t, "get", "crontab", "my-new-cron-object", "-n", "crontabs", "-o", "jsonpath={.status.replicas}")
			if got != "4" {
				return fmt.Errorf("status.replicas = %q, want 4", got)
			}
			return nil
		})
	})

	step(t, "delete the definition with its objects", func(t *testing.T) {
		s.MustKubectl(t, "delete", "crd", "crontabs.stable.example.com")
		eventually(t, "the CRD and its objects gone", func() error {
			if _, err := dyn.Resource(crontabs).Namespace("crontabs").Get(ctx, "my-new-cron-object", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("crontab still readable: %v", err)
			}
			_, errOut, err := s.Kubectl(t, "get", "crd", "crontabs.stable.example.com")
			if err == nil || !strings.Contains(errOut, "NotFound") {
				return fmt.Errorf("crd still there: %v %s", err, errOut)
			}
			return nil
		})
	})
}
