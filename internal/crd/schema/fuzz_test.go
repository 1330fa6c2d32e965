package schema

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// FuzzVersion feeds arbitrary JSON objects through everything a Version
// does with a request body or a stored object, for the widgets schema:
// nothing may panic, whatever the body holds.
func FuzzVersion(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"}, "spec": {"size": "1Gi"}}`,
		`{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": []}, "spec": {"ports": [{"name": 1}], "tags": [null, null], "template": {"kind": 1}}}`,
		`{"apiVersion": 1, "kind": "Widget", "metadata": "x", "spec": [], "status": 7}`,
		`{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "x"}, "spec": {"name": "xx", "minReplicas": 5, "maxReplicas": 1, "replicas": 1e300, "port": {}, "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": 5}}}}`,
		`{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "x", "creationTimestamp": "bad"}, "spec": {"createdAt": 5, "selector": {"a": 1}, "nested": {"inner": null}}, "status": {"conditions": [{"type": "A"}, {"type": "A"}], "replicas": -1, "selector": {}}}`,
		widgetJSON(f),
	} {
		f.Add([]byte(seed))
	}
	v := widgetVersion(f)
	old := object(f, validWidget)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if err := utiljson.Unmarshal(data, &m); err != nil || m == nil {
			return
		}
		raw := &unstructured.Unstructured{Object: m}

		// The raw body, before and without coercion: validation must not
		// trust what Coerce would have rejected.
		exercise(ctx, v, raw.DeepCopy(), old)

		decoded := raw.DeepCopy()
		if _, err := v.Coerce(decoded); err == nil {
			v.Default(decoded.Object)
			exercise(ctx, v, decoded, old)
		}
		stored := raw.DeepCopy()
		if err := v.CoerceStored(stored); err == nil {
			v.Default(stored.Object)
			exercise(ctx, v, stored, old)
		}
		v.Prune(raw.DeepCopy().Object)
	})
}

// exercise runs every check and view of obj (which it may modify).
func exercise(ctx context.Context, v *Version, obj, old *unstructured.Unstructured) {
	v.ValidateCreate(ctx, obj)
	v.ValidateUpdate(ctx, obj, old)
	v.ValidateUpdate(ctx, old, obj)
	v.ValidateUpdate(ctx, obj, obj.DeepCopy())
	v.ValidateStatusUpdate(ctx, obj, old)
	v.WarningsOnCreate(obj)
	v.WarningsOnUpdate(obj, old)
	_, _ = v.Fields(obj)
	for _, policy := range []metav1.IncludeObjectPolicy{metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject} {
		_, _ = v.Table(obj, metav1.TableOptions{IncludeObject: policy}, now)
	}
	_, _ = v.Table(&unstructured.UnstructuredList{Items: []unstructured.Unstructured{*obj, *old}}, metav1.TableOptions{}, now)
	_, _ = v.TypeConverter().ObjectToTyped(obj)

	created := obj.DeepCopy()
	v.PrepareForCreate(created)
	updated := obj.DeepCopy()
	v.PrepareForUpdate(updated, old)
	status := obj.DeepCopy()
	v.PrepareForStatusUpdate(status, old)
	v.ValidateStatusUpdate(ctx, status, old)
}

func widgetJSON(tb testing.TB) string {
	data, err := object(tb, validWidget).MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}
