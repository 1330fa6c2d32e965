package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"

	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// widgetsCRD is a realistic CustomResourceDefinition: about thirty fields
// of every kind, five CEL rules, list types, printer columns, selectable
// fields, status and scale.
//
//go:embed widgets.yaml
var widgetsCRD []byte

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func readWidgetsCRD() (*unstructured.Unstructured, error) {
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(widgetsCRD, &crd.Object); err != nil {
		return nil, fmt.Errorf("widgets.yaml: %w", err)
	}
	return crd, nil
}

// widgets are custom resources of widgets.load.portcullis.dev: what
// schema validation, pruning, defaulting and CEL rules cost per write.
type widgets struct{}

var widgetsGVR = schema.GroupVersionResource{Group: "load.portcullis.dev", Version: "v1", Resource: "widgets"}

// setup creates the CRD (or keeps it) and waits until widgets are served.
func (widgets) setup(ctx context.Context, c client) error {
	crd, err := readWidgetsCRD()
	if err != nil {
		return err
	}
	if _, err := c.dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the widgets CRD: %w", err)
	}
	return waitServed(ctx, c, []string{crd.GetName()}, nil)
}

func widget(ns, name, set string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "load.portcullis.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app": "load", "set": set}},
		"spec": map[string]any{
			"size": "10Gi", "replicas": int64(3), "minReplicas": int64(1), "maxReplicas": int64(5),
			"color": "blue", "name": "widget", "mode": "fast", "schedule": "daily",
			"createdAt": "2026-01-02T03:04:05Z", "port": "http", "ratio": 0.5, "priority": int64(7), "enabled": true,
			"tags": []any{"a", "b"}, "args": []any{"--verbose"},
			"ports":    []any{map[string]any{"name": "http", "port": int64(80)}, map[string]any{"name": "https", "port": int64(443)}},
			"selector": map[string]any{"app": "load"}, "labels": map[string]any{"tier": "web"},
			"config": map[string]any{"anything": "goes"},
			"nested": map[string]any{"inner": map[string]any{}},
		},
	}}
	return u
}

func (widgets) create(ctx context.Context, c client, ns, name, set string) error {
	_, err := c.dyn.Resource(widgetsGVR).Namespace(ns).Create(ctx, widget(ns, name, set), metav1.CreateOptions{})
	return err
}

func (widgets) get(ctx context.Context, c client, ns, name string) error {
	_, err := c.dyn.Resource(widgetsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	return err
}

func (widgets) list(ctx context.Context, c client, ns, selector string) error {
	_, err := c.dyn.Resource(widgetsGVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	return err
}

// runCRDs creates n copies of the widgets CRD (in groups w<i>.load.portcullis.dev)
// from all clients at once and reports how long it took until every one was
// established and its first custom resource created, then deletes them.
func runCRDs(ctx context.Context, clients []client, n int) error {
	base, err := readWidgetsCRD()
	if err != nil {
		return err
	}
	names := make([]string, n)
	groups := make([]string, n)
	for i := range names {
		groups[i] = fmt.Sprintf("w%d.load.portcullis.dev", i)
		names[i] = "widgets." + groups[i]
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, name := range names {
			if err := clients[0].dyn.Resource(crdGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				fmt.Fprintf(os.Stderr, "load: deleting %s: %v\n", name, err)
			}
		}
	}()
	fmt.Printf("%d clients, op crds, %d CRDs\n", len(clients), n)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for w, c := range clients {
		wg.Go(func() {
			for i := w; i < n; i += len(clients) {
				crd := base.DeepCopy()
				crd.SetName(names[i])
				if err := unstructured.SetNestedField(crd.Object, groups[i], "spec", "group"); err != nil {
					errs[w] = err
					return
				}
				if _, err := c.dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
					errs[w] = fmt.Errorf("creating %s: %w", names[i], err)
					return
				}
			}
		})
	}
	wg.Wait()
	created := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := waitServed(ctx, clients[0], names, groups); err != nil {
		return err
	}
	total := time.Since(start)
	fmt.Printf("created %d CRDs in %s; all established and served after %s (%.1f ms per CRD)\n",
		n, created.Round(time.Millisecond), total.Round(time.Millisecond), float64(total.Microseconds())/1000/float64(n))
	return nil
}

// waitServed waits until every named CRD is Established and, for each
// group given, a widget can be created (the resource is served).
func waitServed(ctx context.Context, c client, names, groups []string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for _, name := range names {
		for {
			u, err := c.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
			if err == nil && established(u) {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("waiting for %s to be established: %w", name, ctx.Err())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, g := range groups {
		gvr := widgetsGVR
		gvr.Group = g
		obj := widget("default", "first", "first")
		obj.SetAPIVersion(g + "/v1")
		for {
			_, err := c.dyn.Resource(gvr).Namespace("default").Create(ctx, obj, metav1.CreateOptions{})
			if err == nil || apierrors.IsAlreadyExists(err) {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("waiting for %s to be served: %w", gvr, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

func established(u *unstructured.Unstructured) bool {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return false
	}
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
