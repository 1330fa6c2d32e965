package schema

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// validWidget is a widget that passes every check; cases change it.
const validWidget = `
apiVersion: schema-helper.example.com/v1
kind: Widget
metadata: {name: w, namespace: ns, resourceVersion: "1"}
spec:
  size: 1Gi
  replicas: 3
  minReplicas: 1
  maxReplicas: 5
  color: green
  name: widget
  mode: fast
  createdAt: "2025-06-01T10:00:00Z"
  id: 0b4f5c3e-8a2d-4f7e-9c1b-2d3e4f5a6b7c
  port: http
  ratio: 0.5
  priority: 7
  enabled: true
  note: null
  tags: [a, b]
  ports: [{name: http, port: 80, protocol: TCP}, {name: https, port: 443, protocol: TCP}]
  selector: {app: w}
  labels: {a: b}
  template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: []}}
  config: {anything: [1, 2]}
  nested: {inner: {value: deep}}
status:
  replicas: 3
  selector: app=w
  phase: Ready
  conditions: [{type: Ready, status: "True"}]
`

// widget is validWidget with the JSON merge patch patch applied.
func widget(t *testing.T, patch string) string {
	t.Helper()
	base := object(t, validWidget)
	p := object(t, patch)
	merge(base.Object, p.Object)
	data, err := base.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// merge applies a JSON merge patch (RFC 7386) to dst.
func merge(dst, patch map[string]any) {
	for k, pv := range patch {
		if pv == nil {
			delete(dst, k)
			continue
		}
		pm, ok := pv.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if ok && dok {
			merge(dm, pm)
			continue
		}
		dst[k] = pv
	}
}

const blocked = "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

func TestValidateCreate(t *testing.T) {
	v := widgetVersion(t)
	for _, c := range []struct {
		// patch is merged into validWidget, unless obj is set.
		name, patch, obj string
		want             []string
	}{
		{name: "valid", patch: `{}`},
		{
			// As in kube-apiserver, a wrong kind skips metadata, schema
			// and scale, not embedded resources, list types and rules.
			name:  "wrong kind and apiVersion: some checks are skipped",
			patch: `{"kind": "Gadget", "apiVersion": "schema-helper.example.com/v2", "metadata": {"name": "Bad_Name"}, "spec": {"color": "purple", "tags": ["a", "a"], "minReplicas": 9, "template": {"metadata": {"name": "a/b"}}}}`,
			want: []string{
				`apiVersion: Invalid value: "schema-helper.example.com/v2": must be schema-helper.example.com/v1`,
				`kind: Invalid value: "Gadget": must be Widget`,
				`spec.tags[1]: Duplicate value: "a"`,
				`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
				`spec: Invalid value: minReplicas must not exceed maxReplicas`,
			},
		},
		{
			name:  "metadata name",
			patch: `{"metadata": {"name": "Bad_Name"}}`,
			want:  []string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
		{
			name:  "metadata name and namespace missing",
			patch: `{"metadata": {"name": null, "namespace": null}}`,
			want: []string{
				blocked,
				`metadata.name: Required value: name or generateName is required`,
				`metadata.namespace: Required value`,
			},
		},
		{
			name:  "metadata labels and annotations",
			patch: `{"metadata": {"labels": {"a b": "c"}, "annotations": {"-x": "y"}}}`,
			want: []string{
				`metadata.annotations: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			},
		},
		{
			name:  "types",
			patch: `{"spec": {"replicas": "three", "enabled": "yes", "ratio": "half", "tags": "a", "labels": [], "port": true}}`,
			want: []string{
				`.spec.replicas: Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64`,
				blocked,
				`spec.enabled: Invalid value: "string": spec.enabled in body must be of type boolean: "string"`,
				`spec.labels: Invalid value: "array": spec.labels in body must be of type object: "array"`,
				`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`,
				`spec.ratio: Invalid value: "string": spec.ratio in body must be of type number: "string"`,
				`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
				`spec.tags: Invalid value: "string": spec.tags in body must be of type array: "string"`,
			},
		},
		{
			name:  "formats",
			patch: `{"spec": {"createdAt": "yesterday", "id": "not-a-uuid"}}`,
			want: []string{
				blocked,
				`spec.createdAt: Invalid value: "yesterday": spec.createdAt in body must be of type date-time: "yesterday"`,
				`spec.id: Invalid value: "not-a-uuid": spec.id in body must be of type uuid: "not-a-uuid"`,
			},
		},
		{
			name:  "enum and pattern",
			patch: `{"spec": {"color": "purple", "size": "1Ti"}}`,
			want: []string{
				blocked,
				`spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`,
				`spec.size: Invalid value: "1Ti": spec.size in body should match '^[0-9]+(Mi|Gi)$'`,
			},
		},
		{
			name:  "bounds",
			patch: `{"spec": {"replicas": 101, "ratio": 0, "name": "", "priority": 3000000000}}`,
			// kube-openapi reports the format of a number without a path,
			// and kube-apiserver passes it on as it is.
			want: []string{
				`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.priority`,
				`spec.name: Invalid value: "": spec.name in body should be at least 1 chars long`,
				`spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0`,
				`spec.replicas: Invalid value: 101: spec.replicas in body should be less than or equal to 100`,
			},
		},
		{
			name:  "too long and too many",
			patch: `{"spec": {"name": "abcdefghijklmnopqrstuvwxyz", "tags": ["a", "b", "c", "d", "e", "f"], "labels": {"a": "1", "b": "2", "c": "3", "d": "4"}}}`,
			want: []string{
				blocked,
				`spec.labels: Too many: 4: must have at most 3 items`,
				`spec.name: Too long: may not be more than 20 bytes`,
				`spec.tags: Too many: 6: must have at most 5 items`,
			},
		},
		{
			name:  "required",
			patch: `{"spec": {"size": null, "ports": [{"name": "http"}]}}`,
			want: []string{
				blocked,
				`spec.ports[0].port: Required value`,
				`spec.size: Required value`,
			},
		},
		{
			// Coerce drops such nulls (and Default fills those with a
			// default) before validation; this is the raw check.
			name: "null where not nullable",
			obj: `{"apiVersion": "schema-helper.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"},
				"spec": {"size": "1Gi", "note": null, "name": null}}`,
			want: []string{
				blocked,
				`spec.name: Invalid value: "null": spec.name in body must be of type string: "null"`,
			},
		},
		{
			name:  "embedded resource",
			patch: `{"spec": {"template": {"apiVersion": null, "kind": "", "metadata": {"name": "a/b", "namespace": "UP"}}}}`,
			want: []string{
				blocked,
				`spec.template.apiVersion: Required value`,
				`spec.template.kind: Invalid value: "": must not be empty`,
				`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
				`spec.template.metadata.namespace: Invalid value: "UP": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			},
		},
		{
			name:  "list set and map duplicates",
			patch: `{"spec": {"tags": ["a", "b", "a"], "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}]}, "status": {"conditions": [{"type": "A", "status": "True"}, {"type": "A", "status": "False"}]}}`,
			want: []string{
				`spec.ports[1]: Duplicate value: {"name":"http"}`,
				`spec.tags[2]: Duplicate value: "a"`,
				`status.conditions[1]: Duplicate value: {"type":"A"}`,
			},
		},
		{
			name:  "rules: message, reason and fieldPath, messageExpression",
			patch: `{"spec": {"minReplicas": 9, "color": "red", "replicas": 60, "name": "xylophone"}}`,
			want: []string{
				`spec.name: Invalid value: "xylophone": name xylophone must not start with x`,
				`spec.replicas: Forbidden: red widgets are limited to 50 replicas`,
				`spec: Invalid value: minReplicas must not exceed maxReplicas`,
			},
		},
		{
			name:  "scale paths",
			patch: `{"status": {"selector": 5}}`,
			want: []string{
				`.status.selector: Invalid value: "": .status.selector accessor error: 5 is of the type int64, expected string`,
				blocked,
				`status.selector: Invalid value: "integer": status.selector in body must be of type string: "integer"`,
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.obj
			if in == "" {
				in = widget(t, c.patch)
			}
			errs := v.ValidateCreate(context.Background(), object(t, in))
			if diff := cmp.Diff(c.want, errorStrings(errs), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	v := widgetVersion(t)
	for _, c := range []struct {
		name       string
		old, patch string // old is merged into validWidget, then patch into old
		want       []string
		warnings   []string
	}{
		{name: "no change", old: `{}`, patch: `{}`},
		{
			name:  "transition rule",
			old:   `{}`,
			patch: `{"spec": {"mode": "slow"}}`,
			want:  []string{`spec.mode: Invalid value: "slow": mode is immutable`},
		},
		{
			name:  "transition rule not run without an old value",
			old:   `{"spec": {"mode": null}}`,
			patch: `{"spec": {"mode": "slow"}}`,
		},
		{
			name:  "optionalOldSelf",
			old:   `{"spec": {"schedule": "daily"}}`,
			patch: `{"spec": {"schedule": null}}`,
			want:  []string{`spec: Invalid value: schedule cannot be removed`},
		},
		{
			name:  "immutable metadata",
			old:   `{}`,
			patch: `{"metadata": {"name": "other", "namespace": "other"}}`,
			want: []string{
				`metadata.name: Invalid value: "other": field is immutable`,
				`metadata.namespace: Invalid value: "other": field is immutable`,
			},
		},
		{
			name:  "schema errors ratcheted in unchanged values",
			old:   `{"spec": {"color": "purple", "size": "1Ti", "tags": ["a", "a"]}}`,
			patch: `{"spec": {"replicas": 4}}`,
		},
		{
			name:  "schema errors reported in changed values",
			old:   `{"spec": {"color": "purple"}}`,
			patch: `{"spec": {"color": "pink"}}`,
			want: []string{
				blocked,
				`spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`,
			},
		},
		{
			name:  "list duplicates reported when old had none",
			old:   `{}`,
			patch: `{"spec": {"tags": ["a", "a"]}}`,
			want:  []string{`spec.tags[1]: Duplicate value: "a"`},
		},
		{
			name:     "rule errors in unchanged values are warnings",
			old:      `{"spec": {"name": "xylophone", "minReplicas": 9, "template": null, "config": null}}`,
			patch:    `{"metadata": {"labels": {"new": "label"}}}`,
			warnings: []string{`spec.name: Invalid value: "xylophone": name xylophone must not start with x`, `spec: Invalid value: minReplicas must not exceed maxReplicas`},
		},
		{
			// Values under x-kubernetes-preserve-unknown-fields cannot be
			// correlated field by field, so kube-apiserver never finds
			// an object holding them unchanged: rules on it are not
			// ratcheted, those below it are.
			name:     "no ratcheting above unknown fields",
			old:      `{"spec": {"name": "xylophone", "minReplicas": 9}}`,
			patch:    `{"metadata": {"labels": {"new": "label"}}}`,
			want:     []string{`spec: Invalid value: minReplicas must not exceed maxReplicas`},
			warnings: []string{`spec.name: Invalid value: "xylophone": name xylophone must not start with x`},
		},
		{
			name:  "rule errors in changed values",
			old:   `{"spec": {"name": "xylophone"}}`,
			patch: `{"spec": {"name": "xenon"}}`,
			want:  []string{`spec.name: Invalid value: "xenon": name xenon must not start with x`},
		},
		{
			name:  "wrong kind",
			old:   `{}`,
			patch: `{"kind": "Gadget", "metadata": {"name": "other"}}`,
			want:  []string{`kind: Invalid value: "Gadget": must be Widget`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := object(t, widget(t, c.old))
			obj := old.DeepCopy()
			merge(obj.Object, object(t, c.patch).Object)
			errs, warnings := v.ValidateUpdate(context.Background(), obj, old)
			if diff := cmp.Diff(c.want, errorStrings(errs), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.warnings, warnings, cmpopts.EquateEmpty(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateStatusUpdate(t *testing.T) {
	v := widgetVersion(t)
	for _, c := range []struct {
		name       string
		old, patch string
		want       []string
		warnings   []string
	}{
		{name: "no change", old: `{}`, patch: `{}`},
		{
			name:  "status schema",
			old:   `{}`,
			patch: `{"status": {"phase": "Gone", "replicas": -1}}`,
			want: []string{
				`.status.replicas: Invalid value: -1: should be a non-negative integer`,
				blocked,
				`status.phase: Unsupported value: "Gone": supported values: "Pending", "Ready"`,
				// The status is validated on its own, so kube-openapi's
				// text names the field from there.
				`status.replicas: Invalid value: -1: replicas in body should be greater than or equal to 0`,
			},
		},
		{
			name:  "spec is not checked against the schema",
			old:   `{"spec": {"color": "purple"}}`,
			patch: `{"status": {"phase": "Pending"}}`,
		},
		{
			name:     "rules of the unchanged spec are warnings",
			old:      `{"spec": {"minReplicas": 9, "template": null, "config": null}}`,
			patch:    `{"status": {"phase": "Pending"}}`,
			warnings: []string{`spec: Invalid value: minReplicas must not exceed maxReplicas`},
		},
		{
			name:  "status list duplicates",
			old:   `{}`,
			patch: `{"status": {"conditions": [{"type": "A", "status": "True"}, {"type": "A", "status": "True"}]}}`,
			want:  []string{`status.conditions[1]: Duplicate value: {"type":"A"}`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := object(t, widget(t, c.old))
			obj := old.DeepCopy()
			merge(obj.Object, object(t, c.patch).Object)
			v.PrepareForStatusUpdate(obj, old)
			errs, warnings := v.ValidateStatusUpdate(context.Background(), obj, old)
			if diff := cmp.Diff(c.want, errorStrings(errs), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.warnings, warnings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateScope(t *testing.T) {
	cluster := compileYAML(t, `{type: object}`, func(crd *apiextensionsv1.CustomResourceDefinition) {
		crd.Spec.Scope = apiextensionsv1.ClusterScoped
	})
	namespaced := compileYAML(t, `{type: object}`)
	for _, c := range []struct {
		name string
		v    *Version
		meta string
		want []string
	}{
		{name: "cluster-scoped without namespace", v: cluster, meta: `{name: a}`},
		{name: "cluster-scoped with namespace", v: cluster, meta: `{name: a, namespace: ns}`, want: []string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{name: "namespaced with namespace", v: namespaced, meta: `{name: a, namespace: ns}`},
		{name: "namespaced without namespace", v: namespaced, meta: `{name: a}`, want: []string{`metadata.namespace: Required value`}},
		{name: "namespace not a label", v: namespaced, meta: `{name: a, namespace: Not_A_Label}`, want: []string{`metadata.namespace: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{name: "generateName is validated as a prefix", v: namespaced, meta: `{name: a, generateName: "Bad-", namespace: ns}`, want: []string{`metadata.generateName: Invalid value: "Bad-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{name: "metadata not an object", v: namespaced, meta: `[]`, want: []string{`metadata: Invalid value: []: expected map[string]interface{}, got []interface {}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := object(t, `{apiVersion: schema-helper.example.com/v1, kind: Thing}`)
			obj.Object["metadata"] = object(t, `{m: `+c.meta+`}`).Object["m"]
			errs := c.v.ValidateCreate(context.Background(), obj)
			if diff := cmp.Diff(c.want, errorStrings(errs), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
