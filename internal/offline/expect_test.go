package offline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func TestExpectCheck(t *testing.T) {
	admitted := &Result{Allowed: true, Code: 201, Warnings: []string{"spec.x is deprecated", "label team is missing"},
		Annotations: map[string]string{"replica-limit/replicas": "2", "authorization.k8s.io/decision": "allow"},
		Object: map[string]any{"metadata": map[string]any{"name": "web", "labels": map[string]any{"app.kubernetes.io/name": "web", "team": "a"}},
			"spec": map[string]any{"replicas": float64(3), "containers": []any{map[string]any{"image": "nginx"}}}}}
	denied := &Result{Code: 422, Status: &metav1.Status{Reason: metav1.StatusReasonInvalid, Message: "configmaps \"evil\" is forbidden: no bad configmaps"}}
	noStatus := &Result{Code: 500}
	rows := []struct {
		name   string
		expect Expect
		res    *Result
		want   []string
		// anyOrder: the failures come in no set order (annotations are
		// checked in map order).
		anyOrder bool
	}{
		{name: "nothing expected", res: denied},
		{name: "allowed: pass", expect: Expect{Allowed: ptr(true)}, res: admitted},
		{name: "allowed: fail", expect: Expect{Allowed: ptr(true)}, res: denied,
			want: []string{`want admitted, got denied: 422 configmaps "evil" is forbidden: no bad configmaps`}},
		{name: "denied: pass", expect: Expect{Allowed: ptr(false)}, res: denied},
		{name: "denied: fail", expect: Expect{Allowed: ptr(false)}, res: admitted, want: []string{"want denied, got admitted (201)"}},
		{name: "code: pass", expect: Expect{Code: 422}, res: denied},
		{name: "code: fail", expect: Expect{Code: 403}, res: denied, want: []string{`code: want 403, got 422 configmaps "evil" is forbidden: no bad configmaps`}},
		{name: "reason: pass", expect: Expect{Reason: "Invalid"}, res: denied},
		{name: "reason: fail", expect: Expect{Reason: "Forbidden"}, res: denied, want: []string{`reason: want Forbidden, got "Invalid"`}},
		{name: "reason of no Status", expect: Expect{Reason: "Forbidden"}, res: noStatus, want: []string{`reason: want Forbidden, got ""`}},
		{name: "message: pass", expect: Expect{Message: "no bad"}, res: denied},
		{name: "message: fail", expect: Expect{Message: "not allowed"}, res: denied,
			want: []string{`message: want it to contain "not allowed", got "configmaps \"evil\" is forbidden: no bad configmaps"`}},
		{name: "messageRegex: pass", expect: Expect{MessageRegex: `^configmaps ".+" is forbidden`}, res: denied},
		{name: "messageRegex: fail", expect: Expect{MessageRegex: `^pods`}, res: denied,
			want: []string{`message: want it to match "^pods", got "configmaps \"evil\" is forbidden: no bad configmaps"`}},
		{name: "warnings: pass", expect: Expect{Warnings: []string{"deprecated", "team"}}, res: admitted},
		{name: "warnings: fail", expect: Expect{Warnings: []string{"deprecated", "owner"}}, res: admitted,
			want: []string{`warnings: want one containing "owner", got ["spec.x is deprecated" "label team is missing"]`}},
		{name: "noWarnings: pass", expect: Expect{NoWarnings: true}, res: denied},
		{name: "noWarnings: fail", expect: Expect{NoWarnings: true}, res: admitted,
			want: []string{`warnings: want none, got ["spec.x is deprecated" "label team is missing"]`}},
		{name: "annotations: pass", expect: Expect{Annotations: map[string]string{"replica-limit/replicas": "2"}}, res: admitted},
		{name: "annotations: fail", expect: Expect{Annotations: map[string]string{"replica-limit/replicas": "5", "other": ""}}, res: admitted,
			want: []string{`annotation other: want it to contain "", got ""`, `annotation replica-limit/replicas: want it to contain "5", got "2"`}, anyOrder: true},
		{name: "fields: pass", res: admitted, expect: Expect{Fields: map[string]any{
			"metadata.labels.team": "a", "metadata.labels[app.kubernetes.io/name]": "web",
			"spec.replicas": 3, "spec.containers.0.image": "nginx", "spec.containers[0]": map[string]any{"image": "nginx"},
			"metadata.labels.owner": nil}}},
		{name: "fields: fail", res: admitted, expect: Expect{Fields: map[string]any{
			"metadata.labels.team": "b", "spec.replicas": "3", "spec.containers.1.image": "nginx", "metadata.name": nil}},
			want: []string{`metadata.labels.team: want "b", got "a"`, `metadata.name: want it absent, got "web"`,
				`spec.containers.1.image: want "nginx", absent`, `spec.replicas: want "3", got 3`}},
		{name: "fields of a denial", expect: Expect{Fields: map[string]any{"metadata.name": "web"}}, res: denied,
			want: []string{"fields: no object was answered"}},
		{name: "every failure is reported", expect: Expect{Allowed: ptr(true), Code: 201, Reason: "AlreadyExists"}, res: denied,
			want: []string{`want admitted, got denied: 422 configmaps "evil" is forbidden: no bad configmaps`,
				`code: want 201, got 422 configmaps "evil" is forbidden: no bad configmaps`, `reason: want AlreadyExists, got "Invalid"`}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			got := row.expect.check(row.res)
			var opts []cmp.Option
			if row.anyOrder {
				opts = append(opts, cmpopts.SortSlices(func(a, b string) bool { return a < b }))
			}
			if diff := cmp.Diff(row.want, got, opts...); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitPath(t *testing.T) {
	rows := []struct {
		path string
		want []string
	}{
		{path: "", want: nil},
		{path: "metadata", want: []string{"metadata"}},
		{path: "metadata.labels.team", want: []string{"metadata", "labels", "team"}},
		{path: "spec.containers.0.image", want: []string{"spec", "containers", "0", "image"}},
		{path: "metadata.labels[app.kubernetes.io/name]", want: []string{"metadata", "labels", "app.kubernetes.io/name"}},
		{path: "[a.b].c", want: []string{"a.b", "c"}},
		{path: "spec.containers[0].image", want: []string{"spec", "containers", "0", "image"}},
		{path: "a[b][c]", want: []string{"a", "b", "c"}},
		{path: "a[unclosed", want: []string{"a", "unclosed"}},
	}
	for _, row := range rows {
		t.Run(row.path, func(t *testing.T) {
			if diff := cmp.Diff(row.want, splitPath(row.path)); diff != "" {
				t.Errorf("splitPath(%q) (-want +got):\n%s", row.path, diff)
			}
		})
	}
}

func TestLookupField(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "web"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"image": "nginx"}}, "paused": nil},
	}
	rows := []struct {
		path   string
		want   any
		wantOK bool
	}{
		{path: "metadata.labels[app.kubernetes.io/name]", want: "web", wantOK: true},
		{path: "spec.containers.0.image", want: "nginx", wantOK: true},
		{path: "spec.containers", want: []any{map[string]any{"image": "nginx"}}, wantOK: true},
		{path: "spec.paused", want: nil, wantOK: true},
		{path: "", want: obj, wantOK: true},
		{path: "spec.containers.1.image"},
		{path: "spec.containers.-1"},
		{path: "spec.containers.x"},
		{path: "spec.containers.0.image.deeper"},
		{path: "metadata.annotations"},
	}
	for _, row := range rows {
		t.Run(row.path, func(t *testing.T) {
			got, ok := lookupField(obj, row.path)
			if ok != row.wantOK {
				t.Fatalf("lookupField(%q): ok %v, want %v", row.path, ok, row.wantOK)
			}
			if diff := cmp.Diff(row.want, got); diff != "" {
				t.Errorf("lookupField(%q) (-want +got):\n%s", row.path, diff)
			}
		})
	}
}
