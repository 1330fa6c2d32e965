package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// eventuallyKubectl retries a kubectl command until its output contains
// want: RBAC changes reach the authorizer through a watch.
func eventuallyKubectl(t *testing.T, s *harness.Server, want string, args ...string) string {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		out, errOut, _ := s.Kubectl(t, args...)
		if strings.Contains(out+errOut, want) {
			return out + errOut
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %s never printed %q; last:\n%s%s", strings.Join(args, " "), want, out, errOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestRBAC(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	bob := kubeconfigFor(t, s, "", "bob", "devs")
	as := func(kc string, args ...string) []string { return append([]string{"--kubeconfig", kc}, args...) }

	// Nothing is granted to bob yet beyond the defaults of every user.
	_, errOut, err := s.Kubectl(t, as(bob, "get", "pods", "-n", "default")...)
	if err == nil || !strings.Contains(errOut, `pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`) {
		t.Fatalf("unbound user: err=%v stderr=%s", err, errOut)
	}
	if out := s.MustKubectl(t, as(bob, "auth", "can-i", "create", "selfsubjectaccessreviews.authorization.k8s.io")...); strings.TrimSpace(out) != "yes" {
		t.Errorf("system:basic-user missing: %q", out)
	}

	// The default view role, bound to bob's group in one namespace.
	s.MustKubectl(t, "create", "rolebinding", "devs-view", "--clusterrole=view", "--group=devs", "-n", "default")
	eventuallyKubectl(t, s, "No resources found", as(bob, "get", "pods", "-n", "default")...)
	if _, errOut, err := s.Kubectl(t, as(bob, "get", "pods", "-n", "kube-system")...); err == nil || !strings.Contains(errOut, "forbidden") {
		t.Errorf("the binding leaked to another namespace: %v %s", err, errOut)
	}
	if _, errOut, err := s.Kubectl(t, as(bob, "get", "secrets", "-n", "default")...); err == nil || !strings.Contains(errOut, "forbidden") {
		t.Errorf("view grants secrets: %v %s", err, errOut)
	}
	if out, _, _ := s.Kubectl(t, "auth", "can-i", "create", "configmaps", "-n", "default", "--as", "bob", "--as-group", "devs"); strings.TrimSpace(out) != "no" {
		t.Errorf("can-i create configmaps as bob: %q", out)
	}
	list := s.MustKubectl(t, as(bob, "auth", "can-i", "--list", "-n", "default")...)
	if !strings.Contains(list, "pods ") || !strings.Contains(list, "[get list watch]") {
		t.Errorf("can-i --list lacks the view rules:\n%s", list)
	}

	// Aggregation: a new ClusterRole labelled for view extends view.
	s.MustKubectl(t, "create", "clusterrole", "leases-view", "--verb=get,list,watch", "--resource=leases.coordination.k8s.io")
	s.MustKubectl(t, "label", "clusterrole", "leases-view", "rbac.authorization.k8s.io/aggregate-to-view=true")
	eventuallyKubectl(t, s, "yes", as(bob, "auth", "can-i", "list", "leases.coordination.k8s.io", "-n", "default")...)

	// Impersonation needs the impersonate verb.
	_, errOut, err = s.Kubectl(t, as(bob, "get", "pods", "-n", "default", "--as", "alice")...)
	// ConstrainedImpersonation (on by default in 1.37) names the verb it checked.
	if err == nil || !strings.Contains(errOut, `pods is forbidden: User "bob" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "default"`) {
		t.Errorf("impersonation without the verb: %v %s", err, errOut)
	}
	if out := s.MustKubectl(t, "auth", "whoami", "--as", "alice", "--as-group", "g1"); !strings.Contains(out, "alice") || !strings.Contains(out, "g1") {
		t.Errorf("admin impersonating alice:\n%s", out)
	}

	// Escalation: bob may manage roles in default, but may grant only what he holds.
	s.MustKubectl(t, "create", "role", "role-admin", "--verb=create,update,get", "--resource=roles.rbac.authorization.k8s.io", "-n", "default")
	s.MustKubectl(t, "create", "rolebinding", "bob-role-admin", "--role=role-admin", "--user=bob", "-n", "default")
	eventuallyKubectl(t, s, "yes", as(bob, "auth", "can-i", "create", "roles.rbac.authorization.k8s.io", "-n", "default")...)
	if _, errOut, err := s.Kubectl(t, as(bob, "create", "role", "too-much", "--verb=delete", "--resource=pods", "-n", "default")...); err == nil ||
		!strings.Contains(errOut, `is attempting to grant RBAC permissions not currently held`) {
		t.Errorf("escalation allowed: %v %s", err, errOut)
	}
	s.MustKubectl(t, as(bob, "create", "role", "enough", "--verb=get", "--resource=pods", "-n", "default")...)
	s.MustKubectl(t, "create", "role", "escalator", "--verb=escalate", "--resource=roles.rbac.authorization.k8s.io", "-n", "default")
	s.MustKubectl(t, "create", "rolebinding", "bob-escalator", "--role=escalator", "--user=bob", "-n", "default")
	eventuallyKubectl(t, s, "created", as(bob, "create", "role", "too-much", "--verb=delete", "--resource=pods", "-n", "default")...)
}
