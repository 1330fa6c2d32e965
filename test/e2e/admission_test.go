package e2e

import (
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
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

const mutatingPolicies = `apiVersion: v1
kind: ConfigMap
metadata:
  name: sidecar-settings
  namespace: default
data:
  image: example.com/proxy:1.0
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: inject-sidecar
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  matchConditions:
  - name: not-opted-out
    expression: "!has(object.metadata.labels) || !('no-sidecar' in object.metadata.labels)"
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{
          metadata: Object.metadata{labels: {"sidecar": "injected"}},
          spec: Object.spec{containers: [Object.spec.containers{name: "proxy", image: params.data.image}]}
        }
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: inject-sidecar-binding
spec:
  policyName: inject-sidecar
  paramRef: {name: sidecar-settings, namespace: default, parameterNotFoundAction: Deny}
`

func TestMutatingAdmissionPolicy(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	path := filepath.Join(t.TempDir(), "map.yaml")
	if err := os.WriteFile(path, []byte(mutatingPolicies), 0o600); err != nil {
		t.Fatal(err)
	}
	s.MustKubectl(t, "apply", "-f", path)
	eventuallyKubectl(t, s, "created", "run", "web", "--image=nginx")
	var pod corev1.Pod
	if err := json.Unmarshal([]byte(s.MustKubectl(t, "get", "pod", "web", "-o", "json")), &pod); err != nil {
		t.Fatal(err)
	}
	if pod.Labels["sidecar"] != "injected" || len(pod.Spec.Containers) != 2 || pod.Spec.Containers[1].Image != "example.com/proxy:1.0" {
		t.Errorf("sidecar not injected: labels=%v containers=%+v", pod.Labels, pod.Spec.Containers)
	}
	s.MustKubectl(t, "run", "bare", "--image=nginx", "--labels=no-sidecar=true")
	if out := s.MustKubectl(t, "get", "pod", "bare", "-o", "jsonpath={.spec.containers[*].name}"); strings.TrimSpace(out) != "bare" {
		t.Errorf("opted-out pod mutated: %q", out)
	}
}

// TestAdmissionWebhooks runs real webhooks over HTTPS: a mutating one that
// labels configmaps, a validating one that refuses a forbidden value and
// warns about another.
func TestAdmissionWebhooks(t *testing.T) {
	t.Parallel()
	review := func(w http.ResponseWriter, r *http.Request, decide func(*admissionv1.AdmissionRequest, *admissionv1.AdmissionResponse)) {
		var ar admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&ar); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: ar.Request.UID, Allowed: true}
		decide(ar.Request, resp)
		ar.Response, ar.Request = resp, nil
		_ = json.NewEncoder(w).Encode(&ar)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mutate", func(w http.ResponseWriter, r *http.Request) {
		review(w, r, func(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
			resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels","value":{"webhook":"was-here"}}]`)
		})
	})
	mux.HandleFunc("/validate", func(w http.ResponseWriter, r *http.Request) {
		review(w, r, func(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
			var cm corev1.ConfigMap
			_ = json.Unmarshal(req.Object.Raw, &cm)
			if cm.Labels["webhook"] != "was-here" {
				resp.Allowed, resp.Result = false, nil
				resp.Result = statusFor("the mutating webhook did not run", 400)
				return
			}
			switch cm.Data["mode"] {
			case "forbidden":
				resp.Allowed, resp.Result = false, statusFor("mode forbidden is not allowed", 403)
			case "risky":
				resp.Warnings = []string{"mode risky is deprecated"}
			}
			resp.AuditAnnotations = map[string]string{"mode": cm.Data["mode"]}
		})
	})
	// /slow never answers: only the caller's timeout ends its requests
	// (the server notices a client gone once the body has been read), or
	// the end of the test.
	testEnds := make(chan struct{})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-testEnds:
		}
	})
	hook := httptest.NewTLSServer(mux)
	defer hook.Close()
	defer close(testEnds)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))
	config := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: label-configmaps}
webhooks:
- name: label.example.com
  clientConfig: {url: "%[1]s/mutate", caBundle: %[2]s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {hooks: "on"}}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check-configmaps}
webhooks:
- name: check.example.com
  clientConfig: {url: "%[1]s/validate", caBundle: %[2]s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {hooks: "on"}}
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 5
- name: slow.example.com
  clientConfig: {url: "%[1]s/slow", caBundle: %[2]s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [secrets]}]
  namespaceSelector: {matchLabels: {hooks: "on"}}
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 1
  failurePolicy: Fail
`, hook.URL, ca)
	path := filepath.Join(t.TempDir(), "hooks.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	auditPolicy := filepath.Join(dir, "audit-policy.yaml")
	auditLog := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(auditPolicy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--audit-policy-file", auditPolicy, "--audit-log-path", auditLog)
	s.MustKubectl(t, "create", "namespace", "hooked")
	s.MustKubectl(t, "label", "namespace", "hooked", "hooks=on")
	s.MustKubectl(t, "apply", "-f", path)

	eventuallyKubectl(t, s, "created", "create", "configmap", "ok", "-n", "hooked", "--from-literal=mode=fine")
	if out := s.MustKubectl(t, "get", "configmap", "ok", "-n", "hooked", "-o", "jsonpath={.metadata.labels.webhook}"); out != "was-here" {
		t.Errorf("mutating webhook label: %q", out)
	}
	_, errOut, err := s.Kubectl(t, "create", "configmap", "bad", "-n", "hooked", "--from-literal=mode=forbidden")
	if err == nil || !strings.Contains(errOut, `admission webhook "check.example.com" denied the request: mode forbidden is not allowed`) {
		t.Errorf("validating deny: %v %s", err, errOut)
	}
	_, errOut, err = s.Kubectl(t, "create", "configmap", "warned", "-n", "hooked", "--from-literal=mode=risky")
	if err != nil || !strings.Contains(errOut, "Warning: mode risky is deprecated") {
		t.Errorf("validating warning: %v %s", err, errOut)
	}
	// Outside the selected namespace nothing is called.
	s.MustKubectl(t, "create", "configmap", "elsewhere", "--from-literal=mode=forbidden")

	// A webhook slower than its timeout fails the request (failurePolicy Fail).
	if _, errOut, err := s.Kubectl(t, "create", "secret", "generic", "s", "-n", "hooked"); err == nil ||
		!strings.Contains(errOut, `failed calling webhook "slow.example.com"`) || !strings.Contains(errOut, "deadline exceeded") {
		t.Errorf("timeout: %v %s", err, errOut)
	}
	// A server-side dry run reaches webhooks without side effects.
	if _, errOut, err := s.Kubectl(t, "create", "configmap", "dry", "-n", "hooked", "--from-literal=mode=forbidden", "--dry-run=server"); err == nil ||
		!strings.Contains(errOut, "mode forbidden is not allowed") {
		t.Errorf("dry run: %v %s", err, errOut)
	}

	// The audit log records the mutation and the webhook's annotation;
	// /metrics counts the rejection.
	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"mutation.webhook.admission.k8s.io/round_0_index_0"`, `"check.example.com/mode":"risky"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("audit log lacks %s", want)
		}
	}
	metrics := s.MustKubectl(t, "get", "--raw", "/metrics")
	if !strings.Contains(metrics, `apiserver_admission_webhook_rejection_count{error_type="no_error",name="check.example.com",operation="CREATE",rejection_code="403",type="validating"}`) {
		t.Errorf("rejection metric missing:\n%s", grepLines(metrics, "apiserver_admission_webhook_rejection_count"))
	}
}

func grepLines(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func statusFor(msg string, code int32) *metav1.Status {
	return &metav1.Status{Message: msg, Code: code}
}
