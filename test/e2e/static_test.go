package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"

	"context"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStaticManifests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifests := filepath.Join(dir, "vap")
	if err := os.Mkdir(manifests, 0o700); err != nil {
		t.Fatal(err)
	}
	copyDir(t, "testdata/static", manifests)
	cfg := staticAdmissionConfig(t, dir, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyConfiguration", manifests)
	s := harness.Start(t, allowPrivileged, "--admission-control-config-file", cfg, "--feature-gates", "ManifestBasedAdmissionControlConfig=true")

	// The spec's deny-privileged policy is in force from the first request,
	// and invisible through the API.
	_, errOut, err := s.Kubectl(t, "run", "priv", "--image=nginx", "--overrides",
		`{"spec":{"containers":[{"name":"priv","image":"nginx","securityContext":{"privileged":true}}]}}`)
	if err == nil || !strings.Contains(errOut, "ValidatingAdmissionPolicy 'example-deny-privileged.static.k8s.io' with binding 'example-deny-privileged-binding.static.k8s.io' denied request") {
		t.Errorf("static deny: %v %s", err, errOut)
	}
	if out := s.MustKubectl(t, "get", "validatingadmissionpolicies", "-o", "name"); strings.Contains(out, "static.k8s.io") {
		t.Errorf("static policies visible through the API: %s", out)
	}

	// With the gate on, the API refuses the names reserved for manifests.
	if _, errOut, err := s.Kubectl(t, "create", "-f", "testdata/static/deny-privileged-policy.yaml"); err == nil || !strings.Contains(errOut, `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`) {
		t.Errorf("reserved name accepted: %v %s", err, errOut)
	}

	// Static policies guard the admission resources themselves.
	s.MustKubectl(t, "apply", "-f", "testdata/policies.yaml")
	s.MustKubectl(t, "label", "validatingadmissionpolicy", "deny-privileged", "platform.example.com/protected=true")
	if _, errOut, err := s.Kubectl(t, "delete", "validatingadmissionpolicy", "deny-privileged"); err == nil ||
		!strings.Contains(errOut, "Protected admission resources cannot be modified or deleted") {
		t.Errorf("protected policy deleted: %v %s", err, errOut)
	}

	// A new file is picked up; an invalid one leaves the last good set.
	replaceFile(t, filepath.Join(manifests, "zz-deny-configmaps.yaml"), `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny-blocked.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "object.metadata.name != 'blocked'"
    message: blocked by a static policy
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny-blocked-binding.static.k8s.io}
spec: {policyName: deny-blocked.static.k8s.io, validationActions: [Deny]}
`)
	deadline := time.Now().Add(waitTimeout)
	for {
		_, errOut, err := s.Kubectl(t, "create", "configmap", "blocked", "-n", "kube-public")
		if err != nil && strings.Contains(errOut, "blocked by a static policy") {
			break
		}
		if err == nil {
			s.MustKubectl(t, "delete", "configmap", "blocked", "-n", "kube-public")
		}
		if time.Now().After(deadline) {
			t.Fatal("the new static policy was never enforced")
		}
		time.Sleep(300 * time.Millisecond)
	}
	replaceFile(t, filepath.Join(manifests, "zz-broken.yaml"), "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: not-static}\n")
	waitForMetric(t, s, `apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash=`, `plugin="ValidatingAdmissionPolicy",status="failure"} 1`)
	if _, errOut, err := s.Kubectl(t, "create", "configmap", "blocked", "-n", "kube-public"); err == nil || !strings.Contains(errOut, "blocked by a static policy") {
		t.Errorf("after an invalid reload the last good set is gone: %v %s", err, errOut)
	}
	metrics := s.MustKubectl(t, "get", "--raw", "/metrics")
	for _, want := range []string{
		`apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash=`,
		`plugin="ValidatingAdmissionPolicy",status="failure"} 1`,
		`apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash=`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(metrics, "apiserver_manifest_admission"))
		}
	}
}

func TestStaticManifestsDuplicateNameStopsStartup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manifests := filepath.Join(dir, "vap")
	if err := os.Mkdir(manifests, 0o700); err != nil {
		t.Fatal(err)
	}
	copyDir(t, "testdata/static", manifests)
	data, err := os.ReadFile(filepath.Join(manifests, "deny-privileged-policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(manifests, "zz-copy.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := staticAdmissionConfig(t, dir, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyConfiguration", manifests)
	out, err := runPortcullis(t, "serve", "--data-dir", t.TempDir(), "--secure-port", "0", "--admission-control-config-file", cfg,
		"--feature-gates", "ManifestBasedAdmissionControlConfig=true")
	if err == nil || !strings.Contains(out, "zz-copy.yaml") || !strings.Contains(out, "deny-privileged-policy.yaml") {
		t.Errorf("duplicate names: err=%v\n%s", err, out)
	}
}

func TestStaticManifestsNeedTheGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := staticAdmissionConfig(t, dir, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyConfiguration", dir)
	// On by default, as in kube-apiserver 1.37: turned off here.
	out, err := runPortcullis(t, "serve", "--data-dir", t.TempDir(), "--secure-port", "0", "--admission-control-config-file", cfg,
		"--feature-gates", "ManifestBasedAdmissionControlConfig=false")
	if err == nil || !strings.Contains(out, "staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled") {
		t.Errorf("gate off: err=%v\n%s", err, out)
	}
}

// runPortcullis runs the binary to completion and returns its output.
func runPortcullis(t *testing.T, args ...string) (string, error) {
	t.Helper()
	// The bound is for a hung binary only: the build comes first, and a
	// loaded machine may take long to start and refuse.
	bin := harness.BuildPortcullis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	return string(out), err
}

// TestStaticWebhooks runs a static validating webhook with an API-based
// one, and lets it guard a webhook configuration created through the API.
func TestStaticWebhooks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ar admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&ar); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: ar.Request.UID, Allowed: true}
		// Only the probe: the server's own ConfigMaps (kube-root-ca.crt,
		// extension-apiserver-authentication) pass the webhooks too.
		if ar.Request.Resource.Resource == "configmaps" && ar.Request.Name == "probe" {
			mu.Lock()
			order = append(order, r.URL.Path)
			mu.Unlock()
		}
		if r.URL.Path == "/static" && ar.Request.Operation == admissionv1.Delete && ar.Request.Name == "api-hook" {
			resp.Allowed, resp.Result = false, &metav1.Status{Message: "api-hook is protected", Code: 403}
		}
		ar.Response, ar.Request = resp, nil
		_ = json.NewEncoder(w).Encode(&ar)
	}))
	defer hook.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))
	webhookDoc := func(kind, name, path string) string {
		return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata: {name: %s}
webhooks:
- name: %s.example.com
  clientConfig: {url: "%s%s", caBundle: %s}
  rules:
  - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
  - {operations: [DELETE], apiGroups: [admissionregistration.k8s.io], apiVersions: [v1], resources: [validatingwebhookconfigurations]}
  sideEffects: None
  admissionReviewVersions: [v1]
`, kind, name, strings.TrimSuffix(name, ".static.k8s.io"), hook.URL, path, ca)
	}
	dir := t.TempDir()
	manifests := filepath.Join(dir, "hooks")
	if err := os.Mkdir(manifests, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(manifests, "guard.yaml"), []byte(webhookDoc("ValidatingWebhookConfiguration", "guard.static.k8s.io", "/static")), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := staticAdmissionConfig(t, dir, "ValidatingAdmissionWebhook", "WebhookAdmissionConfiguration", manifests)
	apiHook := filepath.Join(dir, "api-hook.yaml")
	if err := os.WriteFile(apiHook, []byte(webhookDoc("ValidatingWebhookConfiguration", "api-hook", "/api")), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--admission-control-config-file", cfg, "--feature-gates", "ManifestBasedAdmissionControlConfig=true")
	s.MustKubectl(t, "apply", "-f", apiHook)
	eventuallyKubectl(t, s, "created", "create", "configmap", "probe")
	mu.Lock()
	got := strings.Join(order, ",")
	mu.Unlock()
	// As in kube-apiserver, the static and API validating webhooks are
	// dispatched together and called in parallel: both, in any order.
	if got != "/static,/api" && got != "/api,/static" {
		t.Errorf("webhook calls %q, want the static and the API webhook once each", got)
	}
	if _, errOut, err := s.Kubectl(t, "delete", "validatingwebhookconfiguration", "api-hook"); err == nil || !strings.Contains(errOut, "api-hook is protected") {
		t.Errorf("static webhook did not guard the API webhook configuration: %v %s", err, errOut)
	}
}

// staticAdmissionConfig writes an AdmissionConfiguration that gives plugin
// (whose configuration kind is kind) the static manifests in manifests,
// and returns its path.
func staticAdmissionConfig(t *testing.T, dir, plugin, kind, manifests string) string {
	t.Helper()
	cfg := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(cfg, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: `+plugin+`
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: `+kind+`
    staticManifestsDir: `+manifests+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}
