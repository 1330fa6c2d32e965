package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestCoerce(t *testing.T) {
	v := widgetVersion(t)
	for _, c := range []struct {
		name, in string
		// want is the object afterwards, unknown the reported fields,
		// err the error text.
		want    string
		unknown []string
		err     string
	}{
		{
			name: "unknown fields everywhere but where preserved",
			in: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "extra": 1,
				"metadata": {"name": "a", "namespace": "ns", "bogus": true, "labels": {"x": "y"}},
				"spec": {"size": "1Gi", "foo": "bar", "ports": [{"name": "http", "port": 80, "extra": 1}],
					"nested": {"inner": {"value": "v", "x": 1}, "y": 2},
					"config": {"anything": {"goes": [1, 2]}},
					"template": {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": []},
						"metadata": {"name": "p", "unknown": "u"}}},
				"status": {"phase": "Ready", "foo": 1}}`,
			want: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget",
				"metadata": {"name": "a", "namespace": "ns", "labels": {"x": "y"}},
				"spec": {"size": "1Gi", "ports": [{"name": "http", "port": 80}],
					"nested": {"inner": {"value": "v"}},
					"config": {"anything": {"goes": [1, 2]}},
					"template": {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": []}, "metadata": {"name": "p"}}},
				"status": {"phase": "Ready"}}`,
			unknown: []string{"metadata.bogus", "extra", "spec.foo", "spec.nested.inner.x", "spec.nested.y", "spec.ports[0].extra", "status.foo", "spec.template.metadata.unknown"},
		},
		{
			name: "nulls: nullable kept, defaulted kept for Default, others dropped",
			in: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "a"},
				"spec": {"size": "1Gi", "note": null, "name": null, "color": null, "tags": null}}`,
			want: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "a"},
				"spec": {"size": "1Gi", "note": null, "color": null}}`,
		},
		{
			name: "metadata canonicalised",
			in: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget",
				"metadata": {"name": "a", "creationTimestamp": null, "labels": {}, "generation": 3}, "spec": {"size": "1Gi"}}`,
			want: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget",
				"metadata": {"name": "a", "generation": 3}, "spec": {"size": "1Gi"}}`,
		},
		{
			name:    "another kind: only metadata",
			in:      `{"apiVersion": "schema-helper.example.com/v1", "kind": "DeleteOptions", "metadata": {"name": "a", "x": 1}, "foo": "bar"}`,
			want:    `{"apiVersion": "schema-helper.example.com/v1", "kind": "DeleteOptions", "metadata": {"name": "a"}, "foo": "bar"}`,
			unknown: []string{"metadata.x"},
		},
		{
			name: "kind not a string",
			in:   `{"apiVersion": "schema-helper.example.com/v1", "kind": 5}`,
			err:  ".kind accessor error: 5 is of the type int64, expected string",
		},
		{
			name: "name not a string",
			in:   `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": 5}}`,
			err:  "json: cannot unmarshal number into Go struct field ObjectMeta.name of type string",
		},
		{
			name: "embedded kind not a string",
			in: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "a"},
				"spec": {"size": "1Gi", "template": {"apiVersion": "v1", "kind": 1}}}`,
			err: "spec.template.kind: Invalid value: 1: must be a string",
		},
		{
			name: "embedded metadata of the wrong type",
			in: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "a"},
				"spec": {"size": "1Gi", "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": []}}}}`,
			err: `spec.template.metadata: Invalid value: {"labels":[]}: json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := object(t, c.in)
			unknown, err := v.Coerce(obj)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(object(t, c.want).Object, obj.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.unknown, unknown); diff != "" {
				t.Errorf("unknown fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCoerceStored(t *testing.T) {
	v := widgetVersion(t)
	obj := object(t, `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget",
		"metadata": {"name": "a", "labels": ["not", "a", "map"], "bogus": 1},
		"spec": {"size": "1Gi", "foo": 1, "template": {"apiVersion": 1, "kind": "Pod", "metadata": {"annotations": 5}}}}`)
	if err := v.CoerceStored(obj); err != nil {
		t.Fatal(err)
	}
	want := object(t, `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget",
		"metadata": {"name": "a", "generation": 1},
		"spec": {"size": "1Gi", "template": {"kind": "Pod", "metadata": {}}}}`)
	if diff := cmp.Diff(want.Object, obj.Object); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
}

func TestPrune(t *testing.T) {
	legacy := compileYAML(t, `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}`,
		func(crd *apiextensionsv1.CustomResourceDefinition) { crd.Spec.PreserveUnknownFields = true })
	for _, c := range []struct {
		name     string
		v        *Version
		in, want string
		pruned   []string
	}{
		{
			name: "paths sorted, meta fields kept at the root only",
			v:    widgetVersion(t),
			in: `{"apiVersion": "x", "kind": "y", "metadata": {"z": 1}, "zz": 1,
				"spec": {"kind": 1, "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2, "q": 1}], "labels": {"a": "b"}}}`,
			want:   `{"apiVersion": "x", "kind": "y", "metadata": {"z": 1}, "spec": {"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}], "labels": {"a": "b"}}}`,
			pruned: []string{"spec.kind", "spec.ports[1].q", "zz"},
		},
		{
			name: "legacy preserveUnknownFields prunes nothing",
			v:    legacy,
			in:   `{"spec": {"a": "x", "b": 1}, "c": 2}`,
			want: `{"spec": {"a": "x", "b": 1}, "c": 2}`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := object(t, c.in).Object
			pruned := c.v.Prune(obj)
			if diff := cmp.Diff(object(t, c.want).Object, obj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.pruned, pruned); diff != "" {
				t.Errorf("pruned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	v := widgetVersion(t)
	for _, c := range []struct {
		name, in, want string
	}{
		{
			name: "absent fields",
			in:   `{"spec": {"size": "1Gi", "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2, "protocol": "UDP"}]}}`,
			want: `{"spec": {"size": "1Gi", "replicas": 1, "color": "red", "ports": [{"name": "a", "port": 1, "protocol": "TCP"}, {"name": "b", "port": 2, "protocol": "UDP"}]}}`,
		},
		{
			name: "non-nullable null takes the default",
			in:   `{"spec": {"size": "1Gi", "color": null, "replicas": 3}}`,
			want: `{"spec": {"size": "1Gi", "color": "red", "replicas": 3}}`,
		},
		{
			name: "defaults only inside existing objects",
			in:   `{"spec": {"nested": {"inner": {}}}, "status": {}}`,
			want: `{"spec": {"replicas": 1, "color": "red", "nested": {"inner": {"value": "deep"}}}, "status": {}}`,
		},
		{
			name: "no spec, no defaults",
			in:   `{"metadata": {"name": "a"}}`,
			want: `{"metadata": {"name": "a"}}`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := object(t, c.in).Object
			v.Default(obj)
			if diff := cmp.Diff(object(t, c.want).Object, obj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}
