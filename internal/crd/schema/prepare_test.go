package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

func TestPrepare(t *testing.T) {
	withStatus := widgetVersion(t)
	without := compileYAML(t, `{type: object, x-kubernetes-preserve-unknown-fields: true}`)
	const head = "{apiVersion: schema-helper.example.com/v1, kind: Widget, "
	for _, c := range []struct {
		name     string
		v        *Version
		op       string // create, update, status
		obj, old string
		want     string
	}{
		{
			name: "create drops the status", v: withStatus, op: "create",
			obj:  head + `metadata: {name: a, generation: 7}, spec: {a: 1}, status: {b: 2}}`,
			want: head + `metadata: {name: a, generation: 1}, spec: {a: 1}}`,
		},
		{
			name: "create keeps the status without the subresource", v: without, op: "create",
			obj:  head + `metadata: {name: a}, status: {b: 2}}`,
			want: head + `metadata: {name: a, generation: 1}, status: {b: 2}}`,
		},
		{
			name: "update keeps the old status and bumps the generation", v: withStatus, op: "update",
			old:  head + `metadata: {name: a, generation: 2}, spec: {a: 1}, status: {b: 2}}`,
			obj:  head + `metadata: {name: a, generation: 9}, spec: {a: 2}, status: {b: 3}}`,
			want: head + `metadata: {name: a, generation: 3}, spec: {a: 2}, status: {b: 2}}`,
		},
		{
			name: "update without a status before drops it", v: withStatus, op: "update",
			old:  head + `metadata: {name: a, generation: 2}, spec: {a: 1}}`,
			obj:  head + `metadata: {name: a, generation: 2}, spec: {a: 1}, status: {b: 3}}`,
			want: head + `metadata: {name: a, generation: 2}, spec: {a: 1}}`,
		},
		{
			name: "a metadata change keeps the generation", v: withStatus, op: "update",
			old:  head + `metadata: {name: a, generation: 2}, spec: {a: 1}}`,
			obj:  head + `metadata: {name: a, generation: 2, labels: {x: y}}, spec: {a: 1.0}}`,
			want: head + `metadata: {name: a, generation: 2, labels: {x: y}}, spec: {a: 1.0}}`,
		},
		{
			name: "a status change bumps it without the subresource", v: without, op: "update",
			old:  head + `metadata: {name: a, generation: 2}, status: {b: 1}}`,
			obj:  head + `metadata: {name: a, generation: 2}, status: {b: 2}}`,
			want: head + `metadata: {name: a, generation: 3}, status: {b: 2}}`,
		},
		{
			name: "status update takes only the status and managed fields", v: withStatus, op: "status",
			old:  head + `metadata: {name: a, generation: 2, labels: {x: y}}, spec: {a: 1}, status: {b: 1}}`,
			obj:  head + `metadata: {name: a, generation: 5, managedFields: [{manager: m, operation: Update}]}, spec: {a: 2}, status: {b: 2}}`,
			want: head + `metadata: {name: a, generation: 2, labels: {x: y}, managedFields: [{manager: m, operation: Update}]}, spec: {a: 1}, status: {b: 2}}`,
		},
		{
			name: "status update without a status removes it", v: withStatus, op: "status",
			old:  head + `metadata: {name: a}, spec: {a: 1}, status: {b: 1}}`,
			obj:  head + `metadata: {name: a}, spec: {a: 1}}`,
			want: head + `metadata: {name: a}, spec: {a: 1}}`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := object(t, c.obj)
			switch c.op {
			case "create":
				c.v.PrepareForCreate(obj)
			case "update":
				c.v.PrepareForUpdate(obj, object(t, c.old))
			case "status":
				c.v.PrepareForStatusUpdate(obj, object(t, c.old))
			}
			if diff := cmp.Diff(object(t, c.want).Object, obj.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResetFields(t *testing.T) {
	withStatus := widgetVersion(t)
	without := compileYAML(t, `{type: object}`)
	gv := fieldpath.APIVersion("schema-helper.example.com/v1")
	for _, c := range []struct {
		name, subresource string
		v                 *Version
		want              map[fieldpath.APIVersion]*fieldpath.Set
	}{
		{name: "main with status", v: withStatus, want: map[fieldpath.APIVersion]*fieldpath.Set{gv: fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}},
		{name: "main without status", v: without, want: map[fieldpath.APIVersion]*fieldpath.Set{}},
		{name: "status", v: withStatus, subresource: "status", want: map[fieldpath.APIVersion]*fieldpath.Set{gv: fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))}},
		{name: "scale", v: withStatus, subresource: "scale"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.v.ResetFields(c.subresource)
			if diff := cmp.Diff(c.want, got, cmp.Comparer(func(a, b *fieldpath.Set) bool { return a.Equals(b) })); diff != "" {
				t.Errorf("reset fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	v := widgetVersion(t)
	meta := func(finalizers ...string) string {
		obj := object(t, `{apiVersion: schema-helper.example.com/v1, kind: Widget, metadata: {name: a}}`)
		obj.SetFinalizers(finalizers)
		data, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct {
		name     string
		obj, old []string
		create   bool
		want     []string
	}{
		{name: "good names", create: true, obj: []string{"example.com/cleanup", metav1.FinalizerOrphanDependents, "kubernetes"}},
		{
			name: "every kind of bad name, sorted, once", create: true,
			obj: []string{"noslash", "no.slash", "noslash", "Bad Name/x"},
			want: []string{
				`metadata.finalizers: "Bad Name/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`metadata.finalizers: "no.slash": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
				`metadata.finalizers: "noslash": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
			},
		},
		{
			name: "update warns about added names only",
			old:  []string{"old"}, obj: []string{"old", "new"},
			want: []string{`metadata.finalizers: "new": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			if c.create {
				got = v.WarningsOnCreate(object(t, meta(c.obj...)))
			} else {
				got = v.WarningsOnUpdate(object(t, meta(c.obj...)), object(t, meta(c.old...)))
			}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
