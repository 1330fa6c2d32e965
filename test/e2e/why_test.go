package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// TestWhy explains requests from a live server's audit log with
// `portcullis why`: a create a ValidatingAdmissionPolicy denied, and one
// an impersonated user's RoleBinding allowed.
func TestWhy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	auditLog := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(policyFile, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--audit-policy-file", policyFile, "--audit-log-path", auditLog)
	s.MustKubectl(t, "apply", "-f", "testdata/why-policy.yaml")
	s.MustKubectl(t, "create", "rolebinding", "alice-edit", "--clusterrole=edit", "--user=alice")
	eventually(t, "the policy denies", func() error {
		_, _, err := s.Kubectl(t, "create", "configmap", "bad-one")
		if err == nil {
			s.MustKubectl(t, "delete", "configmap", "bad-one")
			return errString("bad-one was admitted")
		}
		return nil
	})
	s.MustKubectl(t, "--as", "alice", "create", "configmap", "good-one")

	why := func(args ...string) string {
		t.Helper()
		var out string
		// The log is written as requests end: wait for the event.
		eventually(t, "the audit event", func() error {
			b, err := exec.Command(harness.BuildPortcullis(t), append([]string{"why", auditLog}, args...)...).CombinedOutput()
			out = string(b)
			if err != nil {
				return errString(out)
			}
			return nil
		})
		return out
	}
	out := why("--resource", "configmaps", "--name", "bad-one", "--denied")
	for _, want := range []string{
		"create configmaps bad-one in default by admin",
		"x509 client certificate: authenticated — admin groups system:masters,system:authenticated",
		"NamespaceLifecycle (mutate): admitted",
		"ValidatingAdmissionPolicy (validate): denied — configmaps \"bad-one\" is forbidden: ValidatingAdmissionPolicy 'why-no-bad' with binding 'why-no-bad' denied request: no bad names",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why of the denied create lacks %q:\n%s", want, out)
		}
	}
	out = why("--user", "alice", "--verb", "create")
	for _, want := range []string{
		"create configmaps good-one in default by admin as alice",
		"impersonation (user-info): authenticated — alice groups system:authenticated",
		`create configmaps in default: allow — RBAC: allowed by RoleBinding "alice-edit/default" of ClusterRole "edit" to User "alice"`,
		"ValidatingAdmissionPolicy (validate): admitted",
		"answered 201",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why of alice's create lacks %q:\n%s", want, out)
		}
	}
}
