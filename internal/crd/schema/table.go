package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"
)

var metadataDescriptions = metav1.ObjectMeta{}.SwaggerDoc()

// tableConvertor renders the printer columns of a version: Name, then
// the additionalPrinterColumns, or Age when there are none.
type tableConvertor struct {
	headers []metav1.TableColumnDefinition
	// paths are the JSONPaths of headers[1:]. A jsonpath.JSONPath keeps
	// state while it evaluates, so each is pooled rather than shared.
	paths []*pathPool
}

// newTableConvertor builds the columns as kube-apiserver does. A column
// whose JSONPath does not parse (CRD validation rejects them) ends the
// list there: kube-apiserver logs it and serves the columns before it.
func newTableConvertor(columns []apiextensionsv1.CustomResourceColumnDefinition) tableConvertor {
	if len(columns) == 0 {
		columns = []apiextensionsv1.CustomResourceColumnDefinition{
			{Name: "Age", Type: "date", Description: metadataDescriptions["creationTimestamp"], JSONPath: ".metadata.creationTimestamp"},
		}
	}
	t := tableConvertor{headers: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: metadataDescriptions["name"]},
	}}
	for _, col := range columns {
		pool, err := newPathPool(col.Name, col.JSONPath)
		if err != nil {
			break
		}
		desc := col.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + col.JSONPath
		}
		t.paths = append(t.paths, pool)
		t.headers = append(t.headers, metav1.TableColumnDefinition{
			Name:        col.Name,
			Type:        col.Type,
			Format:      col.Format,
			Description: desc,
			Priority:    col.Priority,
		})
	}
	return t
}

// pathPool hands out parsed copies of one JSONPath that tolerate missing
// keys.
type pathPool struct{ sync.Pool }

func newPathPool(name, path string) (*pathPool, error) {
	parse := func() (*jsonpath.JSONPath, error) {
		p := jsonpath.New(name).AllowMissingKeys(true)
		return p, p.Parse("{" + path + "}")
	}
	if _, err := parse(); err != nil {
		return nil, err
	}
	pool := &pathPool{}
	pool.New = func() any {
		p, _ := parse() // it parsed above
		return p
	}
	return pool, nil
}

func (p *pathPool) get() *jsonpath.JSONPath  { return p.Get().(*jsonpath.JSONPath) }
func (p *pathPool) put(j *jsonpath.JSONPath) { p.Put(j) }

// Table renders obj, an *unstructured.Unstructured or an
// *unstructured.UnstructuredList of this version, as kube-apiserver's
// table for custom resources: a Name column (format name), then the
// version's additionalPrinterColumns with their type, format, priority
// and description (or "Custom resource definition column (in JSONPath
// format): <path>"), or a single Age column when it has none.
//
// Cells: the name; for each column, the value at its JSONPath (a missing
// value is null). A string column prints any value as kubectl's
// JSONPath printer does (objects and lists as JSON); integer, number and
// boolean columns take only values of their type (numbers convert
// between integer and number) and are null otherwise; a date column
// shows the age of an RFC 3339 timestamp relative to now ("<invalid>"
// when it does not parse).
//
// Rows carry the object as opts.IncludeObject asks: nothing (None), its
// PartialObjectMetadata (Metadata, the default) or the object itself
// (Object). NoHeaders leaves the column definitions out. The table has
// apiVersion meta.k8s.io/v1 and the list's resourceVersion, continue and
// remainingItemCount (or the object's resourceVersion).
func (v *Version) Table(obj runtime.Object, opts metav1.TableOptions, now time.Time) (*metav1.Table, error) {
	switch opts.IncludeObject {
	case "", metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject:
	default:
		return nil, fmt.Errorf("%w: %q", ErrIncludeObject, opts.IncludeObject)
	}
	var items []*unstructured.Unstructured
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		if o == nil {
			return nil, fmt.Errorf("%w: nil object", ErrNotTable)
		}
		items = []*unstructured.Unstructured{o}
	case *unstructured.UnstructuredList:
		if o == nil {
			return nil, fmt.Errorf("%w: nil list", ErrNotTable)
		}
		for i := range o.Items {
			items = append(items, &o.Items[i])
		}
	default:
		return nil, fmt.Errorf("%w: %T", ErrNotTable, obj)
	}

	table := &metav1.Table{
		TypeMeta: metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: "Table"},
		Rows:     make([]metav1.TableRow, 0, len(items)),
	}
	if !opts.NoHeaders {
		table.ColumnDefinitions = append([]metav1.TableColumnDefinition(nil), v.table.headers...)
	}
	if list, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = list.GetResourceVersion()
		table.Continue = list.GetContinue()
		table.RemainingItemCount = list.GetRemainingItemCount()
	}

	paths := make([]*jsonpath.JSONPath, len(v.table.paths))
	for i, p := range v.table.paths {
		paths[i] = p.get()
		defer p.put(paths[i])
	}
	var buf bytes.Buffer
	for _, item := range items {
		cells := make([]any, 1, 1+len(paths))
		cells[0] = item.GetName()
		for i, path := range paths {
			cells = append(cells, cell(path, v.table.headers[i+1].Type, item.Object, now, &buf))
		}
		table.Rows = append(table.Rows, metav1.TableRow{Cells: cells, Object: rowObject(item, opts.IncludeObject)})
	}
	return table, nil
}

// cell is one column's value for obj.
func cell(path *jsonpath.JSONPath, typ string, obj map[string]any, now time.Time, buf *bytes.Buffer) any {
	results, err := path.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	// Columns are simple paths: the first result is the only one.
	value := results[0][0].Interface()
	if typ == "string" {
		buf.Reset()
		if err := path.PrintResults(buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
			return nil
		}
		return buf.String()
	}
	return typedCell(typ, value, now)
}

// typedCell converts a JSON value to a cell of a non-string column type.
func typedCell(typ string, value any, now time.Time) any {
	switch typ {
	case "integer":
		switch x := value.(type) {
		case int64:
			return x
		case float64:
			return int64(x)
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch x := value.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			var t metav1.Time
			if err := t.UnmarshalQueryParameter(s); err != nil {
				return "<invalid>"
			}
			return age(t, now)
		}
	}
	return nil
}

// age is kube-apiserver's human-readable age of t at now.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// partialObjectMetadataKind types the rows' metadata; kubectl asks for
// meta.k8s.io/v1 tables only.
var partialObjectMetadataKind = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")

func rowObject(obj *unstructured.Unstructured, policy metav1.IncludeObjectPolicy) runtime.RawExtension {
	switch policy {
	case metav1.IncludeNone:
		return runtime.RawExtension{}
	case metav1.IncludeObject:
		return runtime.RawExtension{Object: obj}
	}
	partial := meta.AsPartialObjectMetadata(obj)
	partial.SetGroupVersionKind(partialObjectMetadataKind)
	return runtime.RawExtension{Object: partial}
}
