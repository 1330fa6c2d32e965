package schema

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/fields"
)

func TestFields(t *testing.T) {
	widgets := widgetVersion(t)
	cluster := compileYAML(t, `{type: object}`, func(crd *apiextensionsv1.CustomResourceDefinition) {
		crd.Spec.Scope = apiextensionsv1.ClusterScoped
		crd.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.list[*]"}, {JSONPath: ".spec["}}
	})
	for _, c := range []struct {
		name string
		v    *Version
		obj  string
		want fields.Set
		err  string
	}{
		{
			name: "values",
			v:    widgets,
			obj:  `{metadata: {name: w, namespace: ns}, spec: {color: green, replicas: 3, enabled: true}}`,
			want: fields.Set{"metadata.name": "w", "metadata.namespace": "ns", "spec.color": "green", "spec.replicas": "3", "spec.enabled": "true"},
		},
		{
			name: "absent and null give empty values",
			v:    widgets,
			obj:  `{metadata: {name: w, namespace: ns}, spec: {color: null}}`,
			want: fields.Set{"metadata.name": "w", "metadata.namespace": "ns", "spec.color": "", "spec.replicas": "", "spec.enabled": ""},
		},
		{
			name: "numbers as fmt prints them",
			v:    widgets,
			obj:  `{metadata: {name: w}, spec: {replicas: 1.5, enabled: false}}`,
			want: fields.Set{"metadata.name": "w", "metadata.namespace": "", "spec.color": "", "spec.replicas": "1.5", "spec.enabled": "false"},
		},
		{
			name: "several values",
			v:    cluster,
			obj:  `{metadata: {name: c}, spec: {list: [a, b]}}`,
			err:  "selectable field: unexpectedly received more than one JSON path result",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.v.Fields(object(t, c.obj))
			if c.err != "" {
				if !errors.Is(err, ErrSelectableField) || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}

	// The unparseable path fails once the one before it has a value.
	if _, err := cluster.Fields(object(t, `{metadata: {name: c}, spec: {list: [a]}}`)); !errors.Is(err, ErrSelectableField) {
		t.Errorf("unparseable path: error %v, want ErrSelectableField", err)
	}
}

func TestConvertFieldLabel(t *testing.T) {
	widgets := widgetVersion(t)
	cluster := compileYAML(t, `{type: object}`, func(crd *apiextensionsv1.CustomResourceDefinition) {
		crd.Spec.Scope = apiextensionsv1.ClusterScoped
	})
	for _, c := range []struct {
		name, label string
		v           *Version
		err         string
	}{
		{name: "name", v: widgets, label: "metadata.name"},
		{name: "namespace", v: widgets, label: "metadata.namespace"},
		{name: "selectable field", v: widgets, label: "spec.color"},
		{name: "with a dot", v: widgets, label: ".spec.color", err: "field label not supported: .spec.color"},
		{name: "other field", v: widgets, label: "spec.size", err: "field label not supported: spec.size"},
		{name: "namespace of a cluster-scoped kind", v: cluster, label: "metadata.namespace", err: "field label not supported: metadata.namespace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			label, value, err := c.v.ConvertFieldLabel(c.label, "x")
			if c.err != "" {
				if !errors.Is(err, ErrFieldLabel) || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || label != c.label || value != "x" {
				t.Fatalf("ConvertFieldLabel = %q, %q, %v", label, value, err)
			}
		})
	}
}
