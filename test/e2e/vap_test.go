package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func TestValidatingAdmissionPolicy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	auditLog := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(policyFile, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, allowPrivileged, "--audit-policy-file", policyFile, "--audit-log-path", auditLog)
	s.MustKubectl(t, "apply", "-f", "testdata/policies.yaml")

	// Deny, with kube-apiserver's message.
	_, errOut, err := s.Kubectl(t, "run", "priv", "--image=nginx", "--overrides",
		`{"spec":{"containers":[{"name":"priv","image":"nginx","securityContext":{"privileged":true}}]}}`)
	want := `ValidatingAdmissionPolicy 'deny-privileged' with binding 'deny-privileged-binding' denied request: Privileged containers are not allowed`
	if err == nil || !strings.Contains(errOut, want) {
		t.Errorf("privileged pod: err=%v\n%s", err, errOut)
	}
	s.MustKubectl(t, "run", "plain", "--image=nginx")

	// Warn shows as a kubectl warning; Audit lands in the audit log.
	out, errOut, err := s.Kubectl(t, "create", "configmap", "nolabel")
	if err != nil || !strings.Contains(errOut, "Warning: Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'require-team-binding': configmap nolabel has no team label") {
		t.Errorf("warn: err=%v\n%s%s", err, out, errOut)
	}
	s.MustKubectl(t, "create", "configmap", "labelled")
	s.MustKubectl(t, "label", "configmap", "labelled", "team=a")

	// Params from a ConfigMap, with reason Forbidden and an audit annotation.
	if _, errOut, err := s.Kubectl(t, "create", "deployment", "big", "--image=nginx", "--replicas=5"); err == nil ||
		!strings.Contains(errOut, "replicas must be at most 3") || !strings.Contains(errOut, "Forbidden") && !strings.Contains(errOut, "forbidden") {
		t.Errorf("replica limit: err=%v %s", err, errOut)
	}
	s.MustKubectl(t, "create", "deployment", "small", "--image=nginx", "--replicas=2")

	// The status controller type-checks expressions against the schema.
	s.MustKubectl(t, "apply", "-f", "testdata/typo-policy.yaml")
	eventuallyKubectl(t, s, "undefined field 'replicass'", "get", "validatingadmissionpolicy", "typo", "-o", "jsonpath={.status.typeChecking}")

	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	var sawFailure, sawAnnotation bool
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		var ev struct {
			Stage       string            `json:"stage"`
			ObjectRef   map[string]string `json:"objectRef"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad audit line %q: %v", line, err)
		}
		if v := ev.Annotations["validation.policy.admission.k8s.io/validation_failure"]; strings.Contains(v, "require-team") && ev.ObjectRef["name"] == "nolabel" {
			sawFailure = true
		}
		if ev.Annotations["replica-limit/replicas"] == "2" {
			sawAnnotation = true
		}
	}
	if !sawFailure {
		t.Error("no validation_failure audit annotation for the Audit binding")
	}
	if !sawAnnotation {
		t.Error("no replica-limit/replicas audit annotation")
	}
}
