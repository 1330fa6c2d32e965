package mutating

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// paramPolicy adds the label env=<params.data.env> from a ConfigMap.
const paramPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: env-label
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{labels: {"env": params.data.env}}}
`

func paramBinding(name, paramRef string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ` + name + `
spec:
  policyName: env-label
  paramRef:
` + paramRef
}

func configMap(ns, name string, lbls, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}, Data: data}
}

func TestParams(t *testing.T) {
	tests := []struct {
		name    string
		binding string
		want    map[string]string
		wantErr string
	}{
		{"by name in the request namespace", paramBinding("b", "    name: settings\n    parameterNotFoundAction: Deny"), map[string]string{"app": "web", "env": "staging"}, ""},
		{"by name in another namespace", paramBinding("b", "    name: settings\n    namespace: prod\n    parameterNotFoundAction: Deny"), map[string]string{"app": "web", "env": "production"}, ""},
		{"by selector, applied in name order", paramBinding("b", "    selector:\n      matchLabels:\n        kind: env\n    parameterNotFoundAction: Deny"), map[string]string{"app": "web", "env": "second"}, ""},
		{"missing, allowed", paramBinding("b", "    name: nope\n    parameterNotFoundAction: Allow"), map[string]string{"app": "web"}, ""},
		{"missing, denied", paramBinding("b", "    name: nope\n    parameterNotFoundAction: Deny"), nil,
			"policy 'env-label' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"},
		{"name and selector", paramBinding("b", "    name: settings\n    selector: {}\n    parameterNotFoundAction: Deny"), nil,
			"policy 'env-label' with binding 'b' denied request: failed to configure binding: paramRef.name and paramRef.selector are mutually exclusive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv()
			e.Add(configMapGVK, configMap("default", "settings", nil, map[string]string{"env": "staging"}))
			e.Add(configMapGVK, configMap("prod", "settings", nil, map[string]string{"env": "production"}))
			e.Add(configMapGVK, configMap("default", "b-second", map[string]string{"kind": "env"}, map[string]string{"env": "second"}))
			e.Add(configMapGVK, configMap("default", "a-first", map[string]string{"kind": "env"}, map[string]string{"env": "first"}))
			p := newPlugin(t, options(e), paramPolicy, tc.binding)
			a := podRequest(admission.Create, pod("default", "web", map[string]string{"app": "web"}), nil)
			err, _ := admit(p, a)
			if tc.wantErr != "" {
				if err == nil || statusOf(t, err).ErrStatus.Message != tc.wantErr {
					t.Fatalf("err = %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, a.Object.(*corev1.Pod).Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParamsMap uses a whole ConfigMap's data as labels.
func TestParamsMap(t *testing.T) {
	e := newEnv()
	e.Add(configMapGVK, configMap("default", "labels", nil, map[string]string{"team": "a", "cost-center": "42"}))
	policy := strings.Replace(paramPolicy, `{"env": params.data.env}`, `params.data`, 1)
	p := newPlugin(t, options(e), policy, paramBinding("b", "    name: labels\n    parameterNotFoundAction: Deny"))
	out := admitted(t, p, podRequest(admission.Create, pod("default", "web", nil), nil))
	if diff := cmp.Diff(map[string]string{"team": "a", "cost-center": "42"}, out.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestParamKindUnknown(t *testing.T) {
	policy := strings.Replace(paramPolicy, "kind: ConfigMap", "kind: Frobnicator", 1)
	p := newPlugin(t, options(newEnv()), policy, paramBinding("b", "    name: settings\n    parameterNotFoundAction: Deny"))
	err, _ := admit(p, podRequest(admission.Create, pod("default", "web", nil), nil))
	want := `policy "env-label" denied request: failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Frobnicator'`
	if err == nil || statusOf(t, err).ErrStatus.Message != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if r := statusOf(t, err).ErrStatus.Reason; r != metav1.StatusReasonForbidden {
		t.Errorf("reason %q", r)
	}
}

func TestMatchConditions(t *testing.T) {
	spec := func(failurePolicy, condition string) string {
		return `  failurePolicy: ` + failurePolicy + `
  matchConditions:
  - name: wants-sidecar
    expression: ` + condition + `
` + applyConfig(`Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`)
	}
	tests := []struct {
		name      string
		spec      string
		lbls      map[string]string
		mutated   bool
		wantError string
	}{
		{"true", spec("Fail", `"object.metadata.labels['inject'] == 'true'"`), map[string]string{"inject": "true"}, true, ""},
		{"false", spec("Fail", `"object.metadata.labels['inject'] == 'true'"`), map[string]string{"inject": "false"}, false, ""},
		{"error fails", spec("Fail", `"object.metadata.labels['inject'] == 'true'"`), map[string]string{"other": "x"}, false,
			"policy 'p' with binding 'p-binding' denied request: expression 'object.metadata.labels['inject'] == 'true'' resulted in error: no such key: inject"},
		{"error ignored", spec("Ignore", `"object.metadata.labels['inject'] == 'true'"`), map[string]string{"other": "x"}, false, ""},
		{"params-free request", spec("Fail", `"request.operation == 'CREATE' && request.userInfo.username == 'alice'"`), nil, true, ""},
		{"no namespaceObject", spec("Fail", `"namespaceObject == null"`), nil, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", tc.spec))
			a := podRequest(admission.Create, pod("default", "web", tc.lbls), nil)
			err, _ := admit(p, a)
			if tc.wantError != "" {
				se := statusOf(t, err)
				if se.ErrStatus.Message != tc.wantError || se.ErrStatus.Reason != metav1.StatusReasonInvalid {
					t.Fatalf("status = %q %q\nwant %q", se.ErrStatus.Reason, se.ErrStatus.Message, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Object.(*corev1.Pod).Labels["mutated"] == "yes"; got != tc.mutated {
				t.Errorf("mutated = %v, want %v", got, tc.mutated)
			}
		})
	}
}

// TestFailurePolicy checks bad expressions: Fail denies with the
// reference's message, Ignore skips the mutation and keeps the others.
func TestFailurePolicy(t *testing.T) {
	twoMutations := func(failurePolicy, bad string) string {
		return `  failurePolicy: ` + failurePolicy + `
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"first": "yes"}}}'
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: '` + bad + `'
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/metadata/labels/third", value: "yes"}]'
`
	}
	tests := []struct {
		name, bad, want string
	}{
		{"compile error", `Object{metadata: nope}`, "policy 'p' with binding 'p-binding' denied request: compilation failed: ERROR: <input>:1:18: undeclared reference to 'nope' (in container '')"},
		{"wrong result type", `"a string"`, "policy 'p' with binding 'p-binding' denied request: must evaluate to Object but got string"},
		{"runtime error", `Object{metadata: Object.metadata{labels: {"x": object.metadata.annotations["missing"]}}}`, "policy 'p' with binding 'p-binding' denied request: expression 'Object{metadata: Object.metadata{labels: {\"x\": object.metadata.annotations[\"missing\"]}}}' resulted in error: no such key: annotations"},
		{"per-call cost limit", `Object{metadata: Object.metadata{labels: {"x": string([1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, a+b+c+d+e+f)))))).size())}}}`, "policy 'p' with binding 'p-binding' denied request: expression 'Object{metadata: Object.metadata{labels: {\"x\": string([1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, a+b+c+d+e+f)))))).size())}}}' resulted in error: operation cancelled: actual cost limit exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/Fail", func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", twoMutations("Fail", tc.bad)))
			in := pod("default", "web", map[string]string{"app": "web"})
			orig := in.DeepCopy()
			a := podRequest(admission.Create, in, nil)
			err, _ := admit(p, a)
			se := statusOf(t, err)
			if !strings.HasPrefix(se.ErrStatus.Message, tc.want) {
				t.Fatalf("message = %q\nwant      %q", se.ErrStatus.Message, tc.want)
			}
			if se.ErrStatus.Code != 403 || se.ErrStatus.Reason != metav1.StatusReasonInvalid || len(se.ErrStatus.Details.Causes) != 1 {
				t.Errorf("status = %+v", se.ErrStatus)
			}
			if a.Object != in || !equalObjects(in, orig) {
				t.Error("a denied request changed the object")
			}
		})
		t.Run(tc.name+"/Ignore", func(t *testing.T) {
			p := newPlugin(t, options(newEnv()), podPolicy("p", twoMutations("Ignore", tc.bad)))
			in := pod("default", "web", map[string]string{"app": "web"})
			orig := in.DeepCopy()
			out := admitted(t, p, podRequest(admission.Create, in, nil))
			want := map[string]string{"app": "web", "first": "yes", "third": "yes"}
			if diff := cmp.Diff(want, out.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if !equalObjects(in, orig) {
				t.Error("the input object was modified")
			}
		})
	}
}

// TestErrorsCollected: every failing policy is a cause; the first one's
// message is the response's.
func TestErrorsCollected(t *testing.T) {
	p := newPlugin(t, options(newEnv()),
		podPolicy("a", applyConfig(`Object{metadata: Object.metadata{labels: {"x": object.nope}}}`)),
		podPolicy("b", applyConfig(`Object{metadata: Object.metadata{labels: {"b": "yes"}}}`)),
		podPolicy("c", jsonPatch(`[JSONPatch{op: "remove", path: "/nope"}]`)))
	err, _ := admit(p, podRequest(admission.Create, pod("default", "web", nil), nil))
	se := statusOf(t, err)
	if !strings.HasPrefix(se.ErrStatus.Message, "policy 'a' with binding 'a-binding' denied request: expression") {
		t.Errorf("message = %q", se.ErrStatus.Message)
	}
	var causes []string
	for _, c := range se.ErrStatus.Details.Causes {
		causes = append(causes, c.Message[:strings.Index(c.Message, " denied")])
	}
	if diff := cmp.Diff([]string{"policy 'a' with binding 'a-binding'", "policy 'c' with binding 'c-binding'"}, causes); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	if se.ErrStatus.Details.Name != "web" || se.ErrStatus.Details.Kind != "pods" {
		t.Errorf("details = %+v", se.ErrStatus.Details)
	}
}

// TestOrder applies policies and bindings in name order, each seeing what
// the ones before did.
func TestOrder(t *testing.T) {
	p := newPlugin(t, options(newEnv()),
		podPolicy("b-second", applyConfig(`Object{metadata: Object.metadata{labels: {"order": object.metadata.labels["order"] + ",b"}}}`)),
		podPolicy("a-first", applyConfig(`Object{metadata: Object.metadata{labels: {"order": "a"}}}`)),
		`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: b-second-another
spec:
  policyName: b-second
`)
	out := admitted(t, p, podRequest(admission.Create, pod("default", "web", nil), nil))
	if got := out.Labels["order"]; got != "a,b,b" {
		t.Errorf("order = %q", got)
	}
}

func TestVariablesAndNamespace(t *testing.T) {
	spec := `  variables:
  - name: team
    expression: 'has(namespaceObject.metadata.labels) && "env" in namespaceObject.metadata.labels ? namespaceObject.metadata.labels["env"] : "none"'
  - name: label
    expression: '{"env-from-ns": variables.team}'
` + applyConfig(`Object{metadata: Object.metadata{labels: variables.label, annotations: {"uid": string(namespaceObject.metadata.name), "user": request.userInfo.username, "old": string(oldObject != null)}}}`)
	p := newPlugin(t, options(newEnv()), podPolicy("p", spec))
	for _, tc := range []struct{ ns, env, old string }{{"prod", "prod", "false"}, {"default", "none", "false"}} {
		out := admitted(t, p, podRequest(admission.Create, pod(tc.ns, "web", nil), nil))
		if out.Labels["env-from-ns"] != tc.env || out.Annotations["uid"] != tc.ns || out.Annotations["user"] != "alice" || out.Annotations["old"] != tc.old {
			t.Errorf("%s: metadata = %+v", tc.ns, out.ObjectMeta)
		}
	}
	// On update oldObject is the stored object in unstructured form.
	old := pod("default", "web", map[string]string{"v": "1"})
	out := admitted(t, p, podRequest(admission.Update, pod("default", "web", nil), old))
	if out.Annotations["old"] != "true" {
		t.Errorf("annotations = %v", out.Annotations)
	}
}

func TestVariableErrors(t *testing.T) {
	spec := `  variables:
  - name: broken
    expression: 'nope'
` + applyConfig(`Object{metadata: Object.metadata{labels: {"x": variables.broken}}}`)
	p := newPlugin(t, options(newEnv()), podPolicy("p", spec))
	err, _ := admit(p, podRequest(admission.Create, pod("default", "web", nil), nil))
	want := `composited variable "broken" fails to compile`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

type allowAll struct{}

func (allowAll) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.GetVerb() == "approve" {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionDeny, "", nil
}

func TestAuthorizer(t *testing.T) {
	spec := applyConfig(`Object{metadata: Object.metadata{labels: {"approver": string(authorizer.requestResource.check("approve").allowed()), "creator": string(authorizer.requestResource.check("create").allowed())}}}`)
	opts := options(newEnv())
	opts.Authorizer = allowAll{}
	p := newPlugin(t, opts, podPolicy("p", spec))
	out := admitted(t, p, podRequest(admission.Create, pod("default", "web", nil), nil))
	if out.Labels["approver"] != "true" || out.Labels["creator"] != "false" {
		t.Errorf("labels = %v", out.Labels)
	}
}

// TestBindingNarrows: a binding's matchResources narrows its policy's.
func TestBindingNarrows(t *testing.T) {
	docs := podPolicy("p", applyConfig(`Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`)) + `  matchResources:
    namespaceSelector:
      matchLabels:
        env: prod
`
	p := newPlugin(t, options(newEnv()), docs)
	for ns, want := range map[string]bool{"prod": true, "default": false} {
		out := admitted(t, p, podRequest(admission.Create, pod(ns, "web", nil), nil))
		if got := out.Labels["mutated"] == "yes"; got != want {
			t.Errorf("%s: mutated = %v, want %v", ns, got, want)
		}
	}
}

// TestNotApplied covers requests policies never mutate.
func TestNotApplied(t *testing.T) {
	everything := `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: everything
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["*"]
      apiVersions: ["*"]
      operations: ["*"]
      resources: ["*"]
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"mutated": "yes"}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: everything
spec:
  policyName: everything
`
	mapGVR := schema.GroupVersionResource{Group: admissionregistrationv1.GroupName, Version: "v1", Resource: "mutatingadmissionpolicies"}
	policyObj := func() *admissionregistrationv1.MutatingAdmissionPolicy {
		return &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	}
	tests := []struct {
		name    string
		static  bool
		a       *admission.Attributes
		mutated bool
	}{
		{"delete", false, podRequest(admission.Delete, nil, pod("default", "web", nil)), false},
		{"policy resources through the API", false, &admission.Attributes{Operation: admission.Create, Resource: mapGVR, Kind: mapGVR.GroupVersion().WithKind("MutatingAdmissionPolicy"), Name: "x", Object: policyObj()}, false},
		{"policy resources through a manifest", true, &admission.Attributes{Operation: admission.Create, Resource: mapGVR, Kind: mapGVR.GroupVersion().WithKind("MutatingAdmissionPolicy"), Name: "x", Object: policyObj()}, true},
		{"reviews", true, &admission.Attributes{Operation: admission.Create, Resource: schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}, Kind: schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}, Object: &metav1.PartialObjectMetadata{}}, false},
		{"pods", false, podRequest(admission.Create, pod("default", "web", nil), nil), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := options(newEnv())
			opts.Static = tc.static
			p := newPlugin(t, opts, everything)
			before := tc.a.Object
			if err, _ := admit(p, tc.a); err != nil {
				t.Fatal(err)
			}
			if mutated := tc.a.Object != before; mutated != tc.mutated {
				t.Errorf("mutated = %v, want %v", mutated, tc.mutated)
			}
		})
	}
}

func TestMissingNamespace(t *testing.T) {
	p := newPlugin(t, options(newEnv()), podPolicy("p", applyConfig(`Object{}`)))
	err, _ := admit(p, podRequest(admission.Create, pod("gone", "web", nil), nil))
	if se := statusOf(t, err); se.ErrStatus.Code != 404 || se.ErrStatus.Message != `namespaces "gone" not found` {
		t.Fatalf("status = %+v", se.ErrStatus)
	}
}

// TestUnknownSchema: a kind without a schema fails with 503 whatever the
// failure policy, as in kube-apiserver; a type converter for it makes it
// work.
func TestUnknownSchema(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	docs := strings.NewReplacer(`["", "v1"]`, ``, `apiGroups: [""]`, `apiGroups: ["example.com"]`, `resources: ["pods"]`, `resources: ["widgets"]`).
		Replace(podPolicy("p", "  failurePolicy: Ignore\n"+applyConfig(`Object{spec: Object.spec{size: 3}}`)))
	widget := func() *admission.Attributes {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": map[string]any{"color": "red"}}}
		return &admission.Attributes{Operation: admission.Create, Resource: gvr, Kind: gvk, Name: "w", Namespace: "default", Object: obj}
	}
	p := newPlugin(t, options(newEnv()), docs)
	err, _ := admit(p, widget())
	if se := statusOf(t, err); se.ErrStatus.Code != 503 || !strings.HasPrefix(se.ErrStatus.Message, "Resource kind example.com/v1, Kind=Widget not found.") {
		t.Fatalf("status = %+v", se.ErrStatus)
	}

	opts := options(newEnv())
	opts.TypeConverter = func(schema.GroupVersionKind) managedfields.TypeConverter {
		return managedfields.NewDeducedTypeConverter()
	}
	p = newPlugin(t, opts, docs)
	a := widget()
	if err, _ := admit(p, a); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"color": "red", "size": int64(3)}
	if diff := cmp.Diff(want, a.Object.(*unstructured.Unstructured).Object["spec"]); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, ErrNoScheme) {
		t.Fatalf("err = %v", err)
	}
}

// TestUpsertDelete follows policies and bindings as they come and go.
func TestUpsertDelete(t *testing.T) {
	objs := decodeObjects(t, podPolicy("p", applyConfig(`Object{metadata: Object.metadata{labels: {"v": "1"}}}`)))
	p := newPlugin(t, options(newEnv()))
	label := func() string {
		return admitted(t, p, podRequest(admission.Create, pod("default", "web", nil), nil)).Labels["v"]
	}
	p.Upsert(objs[0])
	if label() != "" {
		t.Fatal("a policy without binding applied")
	}
	p.Upsert(objs[1])
	if label() != "1" {
		t.Fatal("policy not applied")
	}
	changed := objs[0].(*admissionregistrationv1.MutatingAdmissionPolicy).DeepCopy()
	changed.Spec.Mutations[0].ApplyConfiguration.Expression = `Object{metadata: Object.metadata{labels: {"v": "2"}}}`
	p.Upsert(changed)
	if label() != "2" {
		t.Fatal("policy not recompiled")
	}
	p.Delete(objs[1])
	if label() != "" {
		t.Fatal("deleted binding applied")
	}
	p.Upsert(objs[1])
	p.Delete(changed)
	if label() != "" {
		t.Fatal("deleted policy applied")
	}
}

// TestConcurrentAdmit admits pods from several goroutines while policies
// change (run with -race).
func TestConcurrentAdmit(t *testing.T) {
	e := newEnv()
	e.Add(configMapGVK, configMap("default", "settings", nil, map[string]string{"env": "staging"}))
	p := newPlugin(t, options(e), paramPolicy, paramBinding("b", "    name: settings\n    parameterNotFoundAction: Deny"),
		podPolicy("side", applyConfig(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "mesh", image: "m"}]}}`)))
	extra := decodeObjects(t, podPolicy("extra", jsonPatch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: {"a": "b"}}]`)))
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := range 20 {
				if g == 0 && i%5 == 0 {
					for _, o := range extra {
						p.Upsert(o)
					}
				}
				a := podRequest(admission.Create, pod("default", fmt.Sprintf("p%d-%d", g, i), nil), nil)
				if err = p.Admit(context.Background(), a); err != nil {
					break
				}
				if out := a.Object.(*corev1.Pod); out.Labels["env"] != "staging" || len(out.Spec.Containers) != 2 {
					err = fmt.Errorf("pod %+v", out)
					break
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestNotReady(t *testing.T) {
	opts := options(newEnv())
	opts.Ready = make(chan struct{})
	p := newPlugin(t, opts, podPolicy("p", applyConfig(`Object{}`)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := p.Admit(ctx, podRequest(admission.Create, pod("default", "web", nil), nil))
	if se := statusOf(t, err); se.ErrStatus.Code != 403 || se.ErrStatus.Message != `pods "web" is forbidden: not yet ready to handle request` {
		t.Fatalf("status = %+v", se.ErrStatus)
	}
}
