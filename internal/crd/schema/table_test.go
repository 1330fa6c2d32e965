package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// now is the clock of every golden table.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const tableWidgets = `
apiVersion: schema-helper.example.com/v1
kind: WidgetList
metadata: {resourceVersion: "42", continue: "next", remainingItemCount: 3}
items:
- apiVersion: schema-helper.example.com/v1
  kind: Widget
  metadata: {name: full, namespace: ns, creationTimestamp: "2025-06-01T10:30:00Z", labels: {app: w}, resourceVersion: "40"}
  spec:
    color: green
    replicas: 3
    ratio: 0.25
    enabled: true
    ports: [{name: http, port: 80}]
    createdAt: "2025-05-01T12:00:00Z"
- apiVersion: schema-helper.example.com/v1
  kind: Widget
  metadata: {name: empty, namespace: ns}
- apiVersion: schema-helper.example.com/v1
  kind: Widget
  metadata: {name: odd, namespace: ns, creationTimestamp: "2025-06-02T12:00:00Z"}
  spec:
    color: 7
    replicas: 2.9
    ratio: 1
    enabled: "yes"
    ports: {not: a list}
    createdAt: yesterday
- apiVersion: schema-helper.example.com/v1
  kind: Widget
  metadata: {name: nulls, namespace: ns, creationTimestamp: "2024-06-01T12:00:00Z"}
  spec: {color: null, replicas: null, createdAt: ""}
`

func list(t *testing.T, text string) *unstructured.UnstructuredList {
	t.Helper()
	l := &unstructured.UnstructuredList{}
	if err := l.UnmarshalJSON(mustJSON(t, object(t, text).Object)); err != nil {
		t.Fatal(err)
	}
	return l
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestTable(t *testing.T) {
	widgets := widgetVersion(t)
	plain := compileYAML(t, `{type: object}`)
	badColumn := compileYAML(t, `{type: object}`, func(crd *apiextensionsv1.CustomResourceDefinition) {
		crd.Spec.Versions[0].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "Good", Type: "string", JSONPath: ".spec.good"},
			{Name: "Bad", Type: "string", JSONPath: ".spec[bad"},
			{Name: "After", Type: "string", JSONPath: ".spec.after"},
		}
	})
	one := object(t, `{apiVersion: schema-helper.example.com/v1, kind: Widget,
		metadata: {name: one, namespace: ns, creationTimestamp: "2025-06-01T11:59:00Z", resourceVersion: "9", uid: u-1, labels: {a: b}},
		spec: {color: blue, replicas: 1}}`)
	for _, c := range []struct {
		name string
		v    *Version
		obj  runtime.Object
		opts metav1.TableOptions
	}{
		{name: "list", v: widgets, obj: list(t, tableWidgets), opts: metav1.TableOptions{IncludeObject: metav1.IncludeNone}},
		{name: "empty list", v: widgets, obj: &unstructured.UnstructuredList{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "5"}}}},
		{name: "one object with metadata", v: widgets, obj: one},
		{name: "one object whole", v: widgets, obj: one, opts: metav1.TableOptions{IncludeObject: metav1.IncludeObject}},
		{name: "no headers", v: widgets, obj: one, opts: metav1.TableOptions{NoHeaders: true, IncludeObject: metav1.IncludeNone}},
		{name: "default columns", v: plain, obj: list(t, tableWidgets), opts: metav1.TableOptions{IncludeObject: metav1.IncludeNone}},
		{name: "unparseable column", v: badColumn, obj: object(t, `{apiVersion: schema-helper.example.com/v1, kind: Thing, metadata: {name: x}, spec: {good: g, after: a}}`), opts: metav1.TableOptions{IncludeObject: metav1.IncludeNone}},
	} {
		t.Run(c.name, func(t *testing.T) {
			table, err := c.v.Table(c.obj, c.opts, now)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, goldenName("table-"+c.name, ".json"), tableJSON(t, table))
		})
	}
}

// tableJSON encodes a table with its rows' objects, which
// runtime.RawExtension only encodes from Raw, unescaped so that
// "<invalid>" reads as such.
func tableJSON(t *testing.T, table *metav1.Table) []byte {
	t.Helper()
	for i := range table.Rows {
		if o := table.Rows[i].Object.Object; o != nil {
			table.Rows[i].Object.Raw = mustJSON(t, o)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(table); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTableErrors(t *testing.T) {
	v := widgetVersion(t)
	for _, c := range []struct {
		name string
		obj  runtime.Object
		opts metav1.TableOptions
		is   error
		text string
	}{
		{name: "includeObject", obj: object(t, `{metadata: {name: a}}`), opts: metav1.TableOptions{IncludeObject: "Everything"}, is: ErrIncludeObject, text: `unrecognized includeObject value: "Everything"`},
		{name: "typed object", obj: &metav1.Status{}, is: ErrNotTable, text: "cannot be shown as a table: *v1.Status"},
		{name: "nil object", obj: (*unstructured.Unstructured)(nil), is: ErrNotTable, text: "cannot be shown as a table: nil object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Table(c.obj, c.opts, now)
			if !errors.Is(err, c.is) || err.Error() != c.text {
				t.Fatalf("error %v, want %q (%v)", err, c.text, c.is)
			}
		})
	}
}

// TestTableShared checks that tables do not share their column
// definitions with the Version.
func TestTableShared(t *testing.T) {
	v := widgetVersion(t)
	a, err := v.Table(object(t, `{metadata: {name: a}}`), metav1.TableOptions{}, now)
	if err != nil {
		t.Fatal(err)
	}
	a.ColumnDefinitions[0].Name = "changed"
	b, err := v.Table(object(t, `{metadata: {name: a}}`), metav1.TableOptions{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("Name", b.ColumnDefinitions[0].Name); diff != "" {
		t.Error(diff)
	}
}
