package e2e

// Custom resources through the access-control chain: RBAC with the
// aggregated roles, the Node authorizer, ValidatingAdmissionPolicy with a
// custom param kind (the ReplicaLimit example of the Kubernetes
// documentation), MutatingAdmissionPolicy, admission webhooks with
// matchPolicy Equivalent across two served versions, static manifests,
// audit and metrics. The expected texts and AdmissionReview fields are
// kube-apiserver v1.37.2's, recorded with the same objects against the
// reference.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func chainWidgets(version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "chain.example.com", Version: version, Resource: "widgets"}
}

// chainWidget is a Widget manifest in version.
func chainWidget(version, ns, name string, replicas int) string {
	return fmt.Sprintf("apiVersion: chain.example.com/%s\nkind: Widget\nmetadata: {name: %s, namespace: %s}\nspec: {replicas: %d}\n", version, name, ns, replicas)
}

// defineWidgets applies the two-version Widget CRD and waits until kubectl
// finds it.
func defineWidgets(t *testing.T, s *harness.Server, ns string) {
	t.Helper()
	s.MustKubectl(t, "apply", "-f", "testdata/crdchain/widgets-crd.yaml")
	s.MustKubectl(t, "wait", "--for", "condition=established", "--timeout=60s", "crd/widgets.chain.example.com")
	eventually(t, "widgets in discovery", func() error {
		_, errOut, err := s.Kubectl(t, "get", "widgets.v2.chain.example.com", "-n", ns)
		if err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		return nil
	})
}

// canI is kubectl auth can-i's answer, yes or no.
func canI(t *testing.T, s *harness.Server, args ...string) string {
	t.Helper()
	out, errOut, _ := s.Kubectl(t, append([]string{"auth", "can-i"}, args...)...)
	if answer := strings.TrimSpace(out); answer == "yes" || answer == "no" {
		return answer
	}
	t.Fatalf("kubectl auth can-i %s: %s%s", strings.Join(args, " "), out, errOut)
	return ""
}

// TestCRDChainRBAC: RBAC on custom resources and their status and scale
// subresources, the edit, admin and view roles aggregating ClusterRoles
// labelled for them, and the Node authorizer and NodeRestriction, which
// have no say on custom resources.
func TestCRDChainRBAC(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--enable-admission-plugins", "NodeRestriction")
	const ns = "chain-rbac"
	createNamespace(t, s.Client(t), ns)
	defineWidgets(t, s, ns)
	s.MustKubectl(t, "apply", "-f", writeFile(t, "roles.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: chain-widgets-edit
  labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}
rules:
- apiGroups: [chain.example.com]
  resources: [widgets]
  verbs: [create, update, patch, delete]
- apiGroups: [chain.example.com]
  resources: [widgets/scale]
  verbs: [update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: chain-widgets-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: [chain.example.com]
  resources: [widgets, widgets/status, widgets/scale]
  verbs: [get, list, watch]
`))
	s.MustKubectl(t, "create", "rolebinding", "bob-edit", "--clusterrole=edit", "--user=bob", "-n", ns)
	s.MustKubectl(t, "create", "rolebinding", "ann-admin", "--clusterrole=admin", "--user=ann", "-n", ns)
	s.MustKubectl(t, "create", "rolebinding", "carol-view", "--clusterrole=view", "--user=carol", "-n", ns)
	bob := kubeconfigFor(t, s, "", "bob")
	as := func(kc string, args ...string) []string { return append([]string{"--kubeconfig", kc}, args...) }

	step(t, "the aggregated roles", func(t *testing.T) {
		eventuallyKubectl(t, s, "yes", as(bob, "auth", "can-i", "create", "widgets.chain.example.com", "-n", ns)...)
		// The same answers kube-apiserver gives a user holding these rules.
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"create", "widgets.chain.example.com"}, "yes"},
			{[]string{"list", "widgets.chain.example.com"}, "yes"},
			{[]string{"get", "widgets.v2.chain.example.com"}, "yes"},
			{[]string{"get", "widgets.chain.example.com", "--subresource=status"}, "yes"},
			{[]string{"update", "widgets.chain.example.com", "--subresource=status"}, "no"},
			{[]string{"patch", "widgets.chain.example.com", "--subresource=scale"}, "yes"},
			{[]string{"update", "widgets.chain.example.com/w", "--subresource=scale"}, "yes"},
			{[]string{"deletecollection", "widgets.chain.example.com"}, "no"},
		} {
			if got := canI(t, s, as(bob, append(tc.args, "-n", ns)...)...); got != tc.want {
				t.Errorf("can-i %s as bob (edit): %s, want %s", strings.Join(tc.args, " "), got, tc.want)
			}
		}
		eventually(t, "admin aggregating edit's rules", func() error {
			if got := canI(t, s, "create", "widgets.chain.example.com", "-n", ns, "--as", "ann"); got != "yes" {
				return fmt.Errorf("can-i create widgets as ann (admin): %s", got)
			}
			return nil
		})
		if got := canI(t, s, "list", "widgets.chain.example.com", "-n", ns, "--as", "carol"); got != "yes" {
			t.Errorf("can-i list widgets as carol (view): %s", got)
		}
		if got := canI(t, s, "create", "widgets.chain.example.com", "-n", ns, "--as", "carol"); got != "no" {
			t.Errorf("can-i create widgets as carol (view): %s", got)
		}
		list := s.MustKubectl(t, as(bob, "auth", "can-i", "--list", "-n", ns)...)
		for resource, verbs := range map[string]string{
			"widgets.chain.example.com":        "[create update patch delete get list watch]",
			"widgets.chain.example.com/scale":  "[update patch get list watch]",
			"widgets.chain.example.com/status": "[get list watch]",
		} {
			if !hasRow(list, resource, verbs) {
				t.Errorf("can-i --list as bob lacks %s %s:\n%s", resource, verbs, grepLines(list, "widgets"))
			}
		}
	})

	step(t, "requests as a user bound to edit", func(t *testing.T) {
		s.MustKubectl(t, as(bob, "apply", "-f", writeFile(t, "w.yaml", chainWidget("v2", ns, "w", 1)))...)
		if out := s.MustKubectl(t, as(bob, "scale", "widget.v2.chain.example.com", "w", "-n", ns, "--replicas=2")...); strings.TrimSpace(out) != "widget.chain.example.com/w scaled" {
			t.Errorf("scale as bob: %q", out)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"patch", "widget", "w", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":2}}`},
				`Error from server (Forbidden): widgets.chain.example.com "w" is forbidden: User "bob" cannot patch resource "widgets/status" in API group "chain.example.com" in the namespace "chain-rbac"`},
			{[]string{"get", "widgets", "-n", "default"},
				`Error from server (Forbidden): widgets.chain.example.com is forbidden: User "bob" cannot list resource "widgets" in API group "chain.example.com" in the namespace "default"`},
		} {
			_, errOut, err := s.Kubectl(t, as(bob, tc.args...)...)
			if err == nil || strings.TrimSpace(errOut) != tc.want {
				t.Errorf("kubectl %s as bob: %v\n%s\nwant %s", strings.Join(tc.args, " "), err, errOut, tc.want)
			}
		}
	})

	step(t, "node identities", func(t *testing.T) {
		node := kubeconfigFor(t, s, "", "system:node:chain-n1", "system:nodes")
		_, errOut, err := s.Kubectl(t, as(node, "get", "widgets", "-n", ns)...)
		if want := `Error from server (Forbidden): widgets.chain.example.com is forbidden: User "system:node:chain-n1" cannot list resource "widgets" in API group "chain.example.com" in the namespace "chain-rbac"`; err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("a node listing widgets: %v\n%s\nwant %s", err, errOut, want)
		}
		// Granted by RBAC, NodeRestriction has nothing to say.
		s.MustKubectl(t, "create", "rolebinding", "node-widgets", "--clusterrole=chain-widgets-edit", "--user=system:node:chain-n1", "-n", ns)
		eventuallyKubectl(t, s, "created", as(node, "create", "-f", writeFile(t, "wn.yaml", chainWidget("v1", ns, "from-node", 1)))...)
		s.MustKubectl(t, as(node, "delete", "widget", "from-node", "-n", ns)...)
	})
}

// hasRow reports whether kubectl auth can-i --list printed a row for
// resource, without names, with verbs.
func hasRow(out, resource, verbs string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && f[0] == resource && f[1] == "[]" && f[2] == "[]" && strings.Join(f[3:], " ") == verbs {
			return true
		}
	}
	return false
}

// TestCRDChainReplicaLimit runs the ReplicaLimit example of the
// ValidatingAdmissionPolicy documentation unchanged, its CRD applied after
// the policy, and deleted again, with kube-apiserver's answers at each
// stage.
func TestCRDChainReplicaLimit(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	const ns = "chain-limits"
	createNamespace(t, c, ns)
	s.MustKubectl(t, "label", "namespace", ns, "environment=test")
	createNamespace(t, c, "chain-unlimited")
	s.MustKubectl(t, "apply", "-f", "testdata/crdchain/replicalimit-policy.yaml", "-f", "testdata/crdchain/replicalimit-binding.yaml")
	deny := func(name, reason string) string {
		return fmt.Sprintf(`error: failed to create deployment: deployments.apps %q is forbidden: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' %s`, name, reason)
	}

	step(t, "before the param kind exists", func(t *testing.T) {
		eventuallyKubectl(t, s, deny("big", "denied request: failed to configure policy: failed to find resource referenced by paramKind: 'rules.example.com/v1, Kind=ReplicaLimit'"),
			"create", "deployment", "big", "-n", ns, "--image=nginx", "--replicas=5")
	})

	step(t, "the CRD and the param", func(t *testing.T) {
		s.MustKubectl(t, "apply", "-f", "testdata/crdchain/replicalimit-crd.yaml")
		s.MustKubectl(t, "wait", "--for", "condition=established", "--timeout=60s", "crd/replicalimits.rules.example.com")
		eventuallyKubectl(t, s, "created", "apply", "-f", "testdata/crdchain/replicalimit-param.yaml")
		_, errOut, err := s.Kubectl(t, "create", "deployment", "big", "-n", ns, "--image=nginx", "--replicas=5")
		if want := deny("big", "with binding 'replicalimit-binding-test.example.com' denied request: failed expression: object.spec.replicas <= params.maxReplicas"); err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("5 replicas: %v\n%s\nwant %s", err, errOut, want)
		}
		// reason: Invalid is a 422, as kube-apiserver answers.
		raw := s.MustKubectl(t, "create", "deployment", "big", "-n", ns, "--image=nginx", "--replicas=5", "--dry-run=client", "-o", "json")
		var status metav1.Status
		code, body := do(t, s.HTTPClient(t), "POST", s.URL+"/apis/apps/v1/namespaces/"+ns+"/deployments", "application/json", []byte(raw))
		if err := json.Unmarshal(body, &status); err != nil || code != 422 || status.Reason != metav1.StatusReasonInvalid {
			t.Errorf("POST of 5 replicas: %d %s", code, body)
		}
		s.MustKubectl(t, "create", "deployment", "small", "-n", ns, "--image=nginx", "--replicas=2")
		s.MustKubectl(t, "create", "deployment", "big", "-n", "chain-unlimited", "--image=nginx", "--replicas=5")
	})

	step(t, "scale is a subresource the policy does not name", func(t *testing.T) {
		// As in kube-apiserver: the rule names deployments, not
		// deployments/scale.
		if out := s.MustKubectl(t, "scale", "deployment", "small", "-n", ns, "--replicas=5"); strings.TrimSpace(out) != "deployment.apps/small scaled" {
			t.Errorf("kubectl scale: %q", out)
		}
		_, errOut, err := s.Kubectl(t, "patch", "deployment", "small", "-n", ns, "-p", `{"spec":{"replicas":6}}`)
		if want := `The deployments "small" is invalid: : ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: failed expression: object.spec.replicas <= params.maxReplicas`; err == nil || strings.TrimSpace(errOut) != want {
			t.Errorf("patch to 6 replicas: %v\n%s\nwant %s", err, errOut, want)
		}
	})

	step(t, "type checking against the param kind's schema", func(t *testing.T) {
		eventuallyKubectl(t, s, `"observedGeneration":1`, "get", "validatingadmissionpolicy", "replicalimit-policy.example.com", "-o", "jsonpath={.status}")
		if got := s.MustKubectl(t, "get", "validatingadmissionpolicy", "replicalimit-policy.example.com", "-o", "jsonpath={.status.typeChecking}"); got != "{}" {
			t.Errorf("typeChecking of the example: %s, want no warnings", got)
		}
		typo, err := os.ReadFile("testdata/crdchain/replicalimit-policy.yaml")
		if err != nil {
			t.Fatal(err)
		}
		doc := strings.ReplaceAll(string(typo), "replicalimit-policy.example.com", "replicalimit-typo.example.com")
		doc = strings.ReplaceAll(doc, "params.maxReplicas", "params.maxReplicass")
		s.MustKubectl(t, "apply", "-f", writeFile(t, "typo.yaml", doc))
		want := "apps/v1, Kind=Deployment: ERROR: <input>:1:31: undefined field 'maxReplicass'\n | object.spec.replicas <= params.maxReplicass\n | ..............................^"
		eventuallyKubectl(t, s, want, "get", "validatingadmissionpolicy", "replicalimit-typo.example.com", "-o", "jsonpath={.status.typeChecking.expressionWarnings[0].warning}")
	})

	step(t, "the CRD deleted", func(t *testing.T) {
		s.MustKubectl(t, "delete", "crd", "replicalimits.rules.example.com")
		// kube-apiserver keeps watching the param kind it resolved: the
		// binding finds no params.
		eventuallyKubectl(t, s, deny("again", "with binding 'replicalimit-binding-test.example.com' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"),
			"create", "deployment", "again", "-n", ns, "--image=nginx", "--replicas=1")
	})
}

// reviews records the AdmissionReview requests a webhook server is sent.
type reviews struct {
	mu   sync.Mutex
	seen []seenReview
}

// seenReview is one AdmissionReview request as a webhook received it.
type seenReview struct {
	path, webhook         string
	req                   admissionv1.AdmissionRequest
	object                map[string]any
	objectVersion, oldVer string
}

func (r *reviews) add(s seenReview) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
}

// take returns and forgets what was recorded.
func (r *reviews) take() []seenReview {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	return out
}

// chainHookServer serves /validate/<webhook> (allow) and /mutate/<webhook>
// (a JSON patch that sets spec.color and adds spec.unknownField, which the
// schema does not know) on 127.0.0.1, recording every review; it returns
// the server's URL and CA bundle.
func chainHookServer(t *testing.T, rec *reviews) (string, string) {
	t.Helper()
	handle := func(patch string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var ar admissionv1.AdmissionReview
			body, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(body, &ar); err != nil || ar.Request == nil {
				http.Error(w, "bad review", http.StatusBadRequest)
				return
			}
			seen := seenReview{path: r.URL.Path, webhook: filepath.Base(r.URL.Path), req: *ar.Request}
			var obj, old unstructured.Unstructured
			if len(ar.Request.Object.Raw) > 0 {
				_ = json.Unmarshal(ar.Request.Object.Raw, &obj.Object)
				seen.object, seen.objectVersion = obj.Object, obj.GetAPIVersion()
			}
			if len(ar.Request.OldObject.Raw) > 0 {
				_ = json.Unmarshal(ar.Request.OldObject.Raw, &old.Object)
				seen.oldVer = old.GetAPIVersion()
			}
			rec.add(seen)
			resp := &admissionv1.AdmissionResponse{UID: ar.Request.UID, Allowed: true}
			if patch != "" && ar.Request.Kind.Kind == "Widget" {
				pt := admissionv1.PatchTypeJSONPatch
				resp.PatchType, resp.Patch = &pt, []byte(patch)
			}
			ar.Response, ar.Request = resp, nil
			_ = json.NewEncoder(w).Encode(&ar)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/validate/", handle(""))
	mux.HandleFunc("/mutate/", handle(`[{"op":"add","path":"/spec/color","value":"blue"},{"op":"add","path":"/spec/unknownField","value":"x"}]`))
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

// chainAdmission are webhooks and policies for Widgets in v1 only, in
// namespace chain-hooks: validating webhooks with matchPolicy Equivalent
// and Exact, a mutating webhook (Equivalent), a ValidatingAdmissionPolicy
// that warns what it sees, and a MutatingAdmissionPolicy that sets
// spec.color and records what it saw in an annotation.
const chainAdmission = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: chain-validate}
webhooks:
- name: equivalent.chain.example.com
  clientConfig: {url: "%[1]s/validate/equivalent", caBundle: %[2]s}
  rules: [{operations: [CREATE, UPDATE], apiGroups: [chain.example.com], apiVersions: [v1], resources: [widgets, widgets/status, widgets/scale]}]
  matchPolicy: Equivalent
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: chain-hooks}}
  sideEffects: None
  admissionReviewVersions: [v1]
- name: exact.chain.example.com
  clientConfig: {url: "%[1]s/validate/exact", caBundle: %[2]s}
  rules: [{operations: [CREATE, UPDATE], apiGroups: [chain.example.com], apiVersions: [v1], resources: [widgets, widgets/status, widgets/scale]}]
  matchPolicy: Exact
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: chain-hooks}}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: chain-mutate}
webhooks:
- name: mutate.chain.example.com
  clientConfig: {url: "%[1]s/mutate/mutate", caBundle: %[2]s}
  rules: [{operations: [CREATE], apiGroups: [chain.example.com], apiVersions: [v1], resources: [widgets]}]
  matchPolicy: Equivalent
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: chain-hooks}}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: chain-vap}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [chain.example.com]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [widgets, widgets/scale, widgets/status]
  validations:
  - expression: "!has(object.spec.unknownField)"
    message: "unknown field visible"
  - expression: "false"
    messageExpression: "'kind=' + request.kind.version + '/' + request.kind.kind + ' requestKind=' + request.requestKind.version + ' resource=' + request.resource.version + '/' + request.resource.resource + ' sub=' + request.subResource + ' object=' + object.apiVersion + '/' + object.kind"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: chain-vap}
spec:
  policyName: chain-vap
  validationActions: [Warn]
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: chain-hooks}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: chain-map}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [chain.example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [widgets]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{spec: Object.spec{color: "green"}}'
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"seen": request.kind.version + "/" + request.requestKind.version + "/" + object.apiVersion + "/" + request.resource.version}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: chain-map}
spec:
  policyName: chain-map
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: chain-hooks}}
`

// TestCRDChainAdmission: policies and webhooks for v1 of a custom resource
// judge and mutate v2 requests converted to v1 (matchPolicy Equivalent),
// with the kinds and resources kube-apiserver sends; a field a mutating
// webhook adds that the schema does not know is seen by validating
// admission and pruned from what is stored; the status and scale
// subresources are admitted as such; audit and metrics name the custom
// resource as kube-apiserver does.
func TestCRDChainAdmission(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	auditPolicy := filepath.Join(dir, "audit-policy.yaml")
	auditLog := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(auditPolicy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &reviews{}
	url, ca := chainHookServer(t, rec)
	s := harness.Start(t, "--audit-policy-file", auditPolicy, "--audit-log-path", auditLog)
	const ns = "chain-hooks"
	createNamespace(t, s.Client(t), ns)
	defineWidgets(t, s, ns)
	dyn := dynamic.NewForConfigOrDie(s.RESTConfig(t))
	ctx := context.Background()
	s.MustKubectl(t, "apply", "-f", writeFile(t, "admission.yaml", fmt.Sprintf(chainAdmission, url, ca)))

	step(t, "every policy and webhook in force", func(t *testing.T) {
		probe := writeFile(t, "probe.yaml", chainWidget("v2", ns, "probe", 1))
		eventually(t, "both policies and the webhooks applied to a v2 dry run", func() error {
			out, errOut, err := s.Kubectl(t, "create", "-f", probe, "--dry-run=server", "-o", "jsonpath={.metadata.annotations.seen} {.spec.color}")
			if err != nil {
				return fmt.Errorf("%v: %s", err, errOut)
			}
			if !strings.Contains(errOut, "unknown field visible") || out != "v1/v2/chain.example.com/v1/v1 blue" {
				return fmt.Errorf("not yet: %q %s", out, errOut)
			}
			var validated bool
			for _, r := range rec.take() {
				validated = validated || r.webhook == "equivalent"
			}
			if !validated {
				return fmt.Errorf("the validating webhook was not called")
			}
			return nil
		})
		rec.take()
	})

	step(t, "a v2 create through v1 webhooks and policies", func(t *testing.T) {
		out, errOut, err := s.Kubectl(t, "create", "-f", writeFile(t, "w.yaml", chainWidget("v2", ns, "w", 1)))
		if err != nil || strings.TrimSpace(out) != "widget.chain.example.com/w created" {
			t.Fatalf("create: %v %s %s", err, out, errOut)
		}
		for _, want := range []string{
			"Warning: Validation failed for ValidatingAdmissionPolicy 'chain-vap' with binding 'chain-vap': unknown field visible",
			// request.subResource is unset on the main resource, so the
			// message expression fails, as it does against kube-apiserver.
			"Warning: Validation failed for ValidatingAdmissionPolicy 'chain-vap' with binding 'chain-vap': failed expression: false",
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("kubectl warned\n%s\nwant %s", errOut, want)
			}
		}
		got := map[string]seenReview{}
		for _, r := range rec.take() {
			if _, dup := got[r.webhook]; dup {
				t.Errorf("webhook %s called twice", r.webhook)
			}
			got[r.webhook] = r
		}
		if _, called := got["exact"]; called {
			t.Error("the Exact webhook for v1 was sent a v2 request")
		}
		for _, name := range []string{"mutate", "equivalent"} {
			r, ok := got[name]
			if !ok {
				t.Fatalf("webhook %s not called", name)
			}
			want := admissionv1.AdmissionRequest{
				Kind:            metav1.GroupVersionKind{Group: "chain.example.com", Version: "v1", Kind: "Widget"},
				Resource:        metav1.GroupVersionResource{Group: "chain.example.com", Version: "v1", Resource: "widgets"},
				RequestKind:     &metav1.GroupVersionKind{Group: "chain.example.com", Version: "v2", Kind: "Widget"},
				RequestResource: &metav1.GroupVersionResource{Group: "chain.example.com", Version: "v2", Resource: "widgets"},
				Name:            "w", Namespace: ns, Operation: admissionv1.Create,
			}
			if r.req.Kind != want.Kind || r.req.Resource != want.Resource || *r.req.RequestKind != *want.RequestKind || *r.req.RequestResource != *want.RequestResource ||
				r.req.SubResource != "" || r.req.RequestSubResource != "" || r.req.Name != want.Name || r.req.Namespace != want.Namespace || r.req.Operation != want.Operation {
				t.Errorf("%s was sent kind %v resource %v requestKind %v requestResource %v sub %q/%q %s/%s %s", name,
					r.req.Kind, r.req.Resource, r.req.RequestKind, r.req.RequestResource, r.req.SubResource, r.req.RequestSubResource, r.req.Namespace, r.req.Name, r.req.Operation)
			}
			if r.objectVersion != "chain.example.com/v1" {
				t.Errorf("%s was sent the object in %s, want chain.example.com/v1", name, r.objectVersion)
			}
		}
		spec := func(r seenReview) map[string]any { m, _, _ := unstructured.NestedMap(r.object, "spec"); return m }
		if m := spec(got["mutate"]); m["color"] != "green" || m["unknownField"] != nil {
			t.Errorf("the mutating webhook was sent spec %v, want the MutatingAdmissionPolicy's green", m)
		}
		if m := spec(got["equivalent"]); m["color"] != "blue" || m["unknownField"] != "x" {
			t.Errorf("the validating webhook was sent spec %v, want the patched one with its unknown field", m)
		}
		obj, err := dyn.Resource(chainWidgets("v2")).Namespace(ns).Get(ctx, "w", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, has, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "unknownField"); has || obj.GetAPIVersion() != "chain.example.com/v2" {
			t.Errorf("stored %v, want v2 without the unknown field", obj.Object)
		}
		if color, _, _ := unstructured.NestedString(obj.Object, "spec", "color"); color != "blue" || obj.GetAnnotations()["seen"] != "v1/v2/chain.example.com/v1/v1" {
			t.Errorf("stored spec %v annotations %v", obj.Object["spec"], obj.GetAnnotations())
		}
	})

	step(t, "a v1 create meets both validating webhooks", func(t *testing.T) {
		s.MustKubectl(t, "create", "-f", writeFile(t, "w1.yaml", chainWidget("v1", ns, "w1", 1)))
		var names []string
		for _, r := range rec.take() {
			names = append(names, r.webhook)
			if r.req.RequestKind.Version != "v1" || r.req.Kind.Version != "v1" {
				t.Errorf("%s: kind %v requestKind %v, want v1", r.webhook, r.req.Kind, r.req.RequestKind)
			}
		}
		if !sameSet(names, []string{"mutate", "equivalent", "exact"}) {
			t.Errorf("webhooks called %v, want mutate, equivalent and exact", names)
		}
	})

	step(t, "status and scale of v2", func(t *testing.T) {
		_, errOut, err := s.Kubectl(t, "scale", "widget.v2.chain.example.com", "w", "-n", ns, "--replicas=4")
		if want := "Warning: Validation failed for ValidatingAdmissionPolicy 'chain-vap' with binding 'chain-vap': kind=v1/Scale requestKind=v1 resource=v1/widgets sub=scale object=autoscaling/v1/Scale"; err != nil || !strings.Contains(errOut, want) {
			t.Errorf("scale: %v\n%s\nwant %s", err, errOut, want)
		}
		_, errOut, err = s.Kubectl(t, "patch", "widget.v2.chain.example.com", "w", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":2}}`)
		if want := "Warning: Validation failed for ValidatingAdmissionPolicy 'chain-vap' with binding 'chain-vap': kind=v1/Widget requestKind=v2 resource=v1/widgets sub=status object=chain.example.com/v1/Widget"; err != nil || !strings.Contains(errOut, want) {
			t.Errorf("status: %v\n%s\nwant %s", err, errOut, want)
		}
		seen := rec.take()
		if len(seen) != 2 {
			t.Fatalf("webhooks called %d times, want the Equivalent validating webhook twice: %+v", len(seen), seen)
		}
		scale, status := seen[0], seen[1]
		if scale.webhook != "equivalent" || scale.req.Kind != (metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}) ||
			scale.req.Resource.Version != "v1" || scale.req.SubResource != "scale" || scale.req.RequestResource.Version != "v2" || scale.req.RequestSubResource != "scale" ||
			scale.req.RequestKind.Kind != "Scale" || scale.objectVersion != "autoscaling/v1" || scale.oldVer != "autoscaling/v1" {
			t.Errorf("scale review: %s kind %v resource %v/%s request %v %v/%s objects %s %s", scale.webhook, scale.req.Kind, scale.req.Resource, scale.req.SubResource,
				scale.req.RequestKind, scale.req.RequestResource, scale.req.RequestSubResource, scale.objectVersion, scale.oldVer)
		}
		if replicas, _, _ := unstructured.NestedFieldNoCopy(scale.object, "spec", "replicas"); fmt.Sprint(replicas) != "4" {
			t.Errorf("scale review object %v, want 4 replicas", scale.object)
		}
		if status.req.Kind.Version != "v1" || status.req.SubResource != "status" || status.req.RequestKind.Version != "v2" || status.objectVersion != "chain.example.com/v1" || status.oldVer != "chain.example.com/v1" {
			t.Errorf("status review: kind %v sub %s requestKind %v objects %s %s", status.req.Kind, status.req.SubResource, status.req.RequestKind, status.objectVersion, status.oldVer)
		}
	})

	step(t, "type checking against the CRD's schema", func(t *testing.T) {
		s.MustKubectl(t, "apply", "-f", writeFile(t, "typo.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: chain-typo}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [chain.example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [widgets]
  validations:
  - expression: "object.spec.replicass > 1"
  - expression: "object.spec.color == 'blue'"
`))
		want := "chain.example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^"
		out := eventuallyKubectl(t, s, want, "get", "validatingadmissionpolicy", "chain-typo", "-o", "jsonpath={.status.typeChecking.expressionWarnings[*].fieldRef}:{.status.typeChecking.expressionWarnings[0].warning}")
		if !strings.HasPrefix(out, "spec.validations[0].expression:") {
			t.Errorf("warnings %q, want one, on spec.validations[0].expression", out)
		}
	})

	step(t, "audit and metrics", func(t *testing.T) {
		data, err := os.ReadFile(auditLog)
		if err != nil {
			t.Fatal(err)
		}
		// verb resource.group/version/subresource namespace/name
		want := map[string]bool{
			"create widgets.chain.example.com/v2/ chain-hooks/w":      false,
			"patch widgets.chain.example.com/v2/scale chain-hooks/w":  false,
			"patch widgets.chain.example.com/v2/status chain-hooks/w": false,
		}
		for _, line := range strings.Split(string(data), "\n") {
			var ev struct {
				Stage     string `json:"stage"`
				Verb      string `json:"verb"`
				ObjectRef struct {
					Resource, Namespace, Name, APIGroup, APIVersion, Subresource string
				} `json:"objectRef"`
			}
			if line == "" || json.Unmarshal([]byte(line), &ev) != nil || ev.Stage != "ResponseComplete" {
				continue
			}
			o := ev.ObjectRef
			key := fmt.Sprintf("%s %s.%s/%s/%s %s/%s", ev.Verb, o.Resource, o.APIGroup, o.APIVersion, o.Subresource, o.Namespace, o.Name)
			if _, ok := want[key]; ok {
				want[key] = true
			}
		}
		for k, found := range want {
			if !found {
				t.Errorf("no audit event with objectRef and verb %s", k)
			}
		}
		waitForMetric(t, s, `apiserver_request_total{code="201",component="apiserver",dry_run="",group="chain.example.com",resource="widgets",scope="resource",subresource="",verb="POST",version="v2"}`)
		waitForMetric(t, s, `apiserver_request_total{code="200",component="apiserver",dry_run="",group="chain.example.com",resource="widgets",scope="resource",subresource="scale",verb="PATCH",version="v2"}`)
		waitForMetric(t, s, `apiserver_admission_webhook_request_total{code="200",name="equivalent.chain.example.com",operation="UPDATE",rejected="false",type="validating"}`)
	})
}

// TestCRDChainStaticManifests: a static policy naming a custom resource
// loads before its CRD exists and applies once the CRD is served, through
// the other version too (static manifests are defaulted as the API
// defaults, matchPolicy Equivalent).
func TestCRDChainStaticManifests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifests := filepath.Join(dir, "policies")
	if err := os.Mkdir(manifests, 0o700); err != nil {
		t.Fatal(err)
	}
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: few-widgets.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [chain.example.com]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [widgets]
  validations:
  - expression: "object.spec.replicas <= 3"
    messageExpression: "'at most 3 replicas, not ' + string(object.spec.replicas) + ' (' + request.kind.version + ' for ' + request.requestKind.version + ')'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: few-widgets-binding.static.k8s.io}
spec: {policyName: few-widgets.static.k8s.io, validationActions: [Deny]}
`
	if err := os.WriteFile(filepath.Join(manifests, "widgets.yaml"), []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := staticAdmissionConfig(t, dir, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyConfiguration", manifests)
	s := harness.Start(t, "--admission-control-config-file", cfg, "--feature-gates", "ManifestBasedAdmissionControlConfig=true")
	const ns = "chain-static"
	createNamespace(t, s.Client(t), ns)
	defineWidgets(t, s, ns)
	for _, version := range []string{"v1", "v2"} {
		_, errOut, err := s.Kubectl(t, "create", "-f", writeFile(t, "big.yaml", chainWidget(version, ns, "big", 5)))
		want := fmt.Sprintf(`The widgets "big" is invalid: : ValidatingAdmissionPolicy 'few-widgets.static.k8s.io' with binding 'few-widgets-binding.static.k8s.io' denied request: at most 3 replicas, not 5 (v1 for %s)`, version)
		if err == nil || !strings.Contains(errOut, want) {
			t.Errorf("%s widget of 5 replicas: %v\n%s\nwant %s", version, err, errOut, want)
		}
	}
	s.MustKubectl(t, "create", "-f", writeFile(t, "small.yaml", chainWidget("v2", ns, "small", 2)))
	if _, err := dynamic.NewForConfigOrDie(s.RESTConfig(t)).Resource(chainWidgets("v1")).Namespace(ns).Get(context.Background(), "big", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the denied widget exists: %v", err)
	}
}
