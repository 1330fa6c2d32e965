package crd

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

const widgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wg]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1, default: 3}
              colour: {type: string}
          status:
            type: object
            properties:
              ready: {type: boolean}
status:
  acceptedNames: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wg]}
  storedVersions: [v1]
  conditions:
  - {type: NamesAccepted, status: "True", reason: NoConflicts, message: no conflicts found}
  - {type: Established, status: "True", reason: InitialNamesAccepted, message: the initial names have been accepted}
`

var widgetsV1 = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// storeCRD writes a CRD straight into the store, as the REST layer would
// once its status controller has established it.
func storeCRD(t *testing.T, env *controllertest.Env, doc string, update bool) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
		t.Fatal(err)
	}
	crd.UID = types.UID("uid-" + crd.Name)
	res, _ := env.Objects.Lookup(GVR)
	data, err := env.Objects.Encode(res, crd)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !update {
		_, err = env.Objects.Store().Create(ctx, res.Key("", crd.Name), data)
	} else {
		var cur storage.KeyValue
		if cur, err = env.Objects.Store().Get(ctx, res.Key("", crd.Name)); err == nil {
			_, err = env.Objects.Store().Update(ctx, res.Key("", crd.Name), data, cur.ModRevision)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func widget(name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Widget")
	u.SetName(name)
	u.SetNamespace("default")
	return u
}

func TestCatalogServesEstablishedCRDs(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	storeCRD(t, env, widgetsCRD, false)
	var published [][]*registry.Resource
	crds, err := NewCRDs(env.Objects, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cat := New(crds, env.Objects.Registry(), nil, slog.New(slog.DiscardHandler), func(rs []*registry.Resource) error {
		published = append(published, rs)
		return nil
	})
	controllertest.Run(t, crds.Run)
	controllertest.Run(t, cat.Run)
	if err := cat.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	res, ok := env.Objects.Lookup(widgetsV1)
	if !ok {
		t.Fatal("widgets are not served after the first sync")
	}
	if !res.Namespaced || res.Kind != "Widget" || !res.Status || res.Custom == nil || len(published) == 0 {
		t.Fatalf("resource %+v, published %d times", res, len(published))
	}

	step := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	step("create defaults and stores as JSON", func(t *testing.T) {
		if _, err := env.API.Create(ctx, widget("a", map[string]any{"colour": "red", "shape": "round"}), "test"); err != nil {
			t.Fatal(err)
		}
		kv, err := env.Objects.Store().Get(ctx, res.Key("default", "a"))
		if err != nil {
			t.Fatal(err)
		}
		stored := string(kv.Value)
		for _, want := range []string{`"apiVersion":"example.com/v1"`, `"size":3`, `"colour":"red"`} {
			if !strings.Contains(stored, want) {
				t.Errorf("stored %s, want it to hold %s", stored, want)
			}
		}
		if strings.Contains(stored, "shape") || strings.Contains(stored, "resourceVersion") {
			t.Errorf("stored %s: an unknown field or the resourceVersion was kept", stored)
		}
	})
	step("invalid objects are refused", func(t *testing.T) {
		_, err := env.API.Create(ctx, widget("b", map[string]any{"size": int64(0)}), "test")
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1") {
			t.Fatalf("create of size 0: %v", err)
		}
	})
	step("a new version is served after the CRD changes", func(t *testing.T) {
		two := strings.Replace(widgetsCRD, "  versions:\n", `  versions:
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`, 1)
		storeCRD(t, env, two, true)
		v2 := widgetsV1
		v2.Version = "v2"
		controllertest.Eventually(t, func() (bool, string) {
			_, ok := env.Objects.Lookup(v2)
			return ok, "widgets v2 not served"
		})
		// An object stored in v1 reads in v2 (conversion None).
		obj, err := env.Objects.Get(ctx, v2, "default", "a")
		if err != nil {
			t.Fatal(err)
		}
		if got := obj.GetObjectKind().GroupVersionKind().Version; got != "v2" {
			t.Errorf("read through v2 as %s", got)
		}
	})
	step("a deleted CRD's resources go", func(t *testing.T) {
		crdRes, _ := env.Objects.Lookup(GVR)
		cur, err := env.Objects.Store().Get(ctx, crdRes.Key("", "widgets.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := env.Objects.Store().Delete(ctx, crdRes.Key("", "widgets.example.com"), cur.ModRevision); err != nil {
			t.Fatal(err)
		}
		controllertest.Eventually(t, func() (bool, string) {
			_, ok := env.Objects.Lookup(widgetsV1)
			return !ok, "widgets still served after the CRD was deleted"
		})
	})
}

func TestNotEstablishedIsNotServed(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(widgetsCRD), crd); err != nil {
		t.Fatal(err)
	}
	crd.Status.Conditions = crd.Status.Conditions[:1]
	resources, err := Resources(crd)
	if err != nil || len(resources) != 0 {
		t.Fatalf("Resources of a CRD not established = %v, %v", resources, err)
	}
}
