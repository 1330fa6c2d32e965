package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func TestNodeAuthorization(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, "--enable-admission-plugins=NodeRestriction")
	n1 := kubeconfigFor(t, s, "", "system:node:n1", "system:nodes")
	node := func(args ...string) (string, error) {
		out, errOut, err := s.Kubectl(t, append([]string{"--kubeconfig", n1}, args...)...)
		return out + errOut, err
	}
	mustFail := func(want string, args ...string) {
		t.Helper()
		out, err := node(args...)
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("kubectl %s: err=%v, want %q in:\n%s", strings.Join(args, " "), err, want, out)
		}
	}
	mustWork := func(args ...string) string {
		t.Helper()
		out, err := node(args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// A kubelet registers its own Node, and only its own.
	mustWork("create", "-f", write("n1.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {kubernetes.io/hostname: n1}\n"))
	mustFail(`node "n1" is not allowed to modify node "n2"`, "create", "-f", write("n2.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n"))
	mustWork("label", "node", "n1", "topology.kubernetes.io/zone=z1")
	mustFail("node-restriction.kubernetes.io/team", "label", "node", "n1", "node-restriction.kubernetes.io/team=a")
	mustFail("taints", "taint", "node", "n1", "k=v:NoSchedule")

	// Secrets reach a node only through a pod bound to it.
	s.MustKubectl(t, "apply", "-f", "testdata/node-workload.yaml")
	eventuallyKubectl(t, s, "s1", "--kubeconfig", n1, "get", "secret", "s1", "-n", "default")
	mustFail("no relationship found between node 'n1' and this object", "get", "secret", "s2", "-n", "default")
	mustFail("forbidden", "get", "secrets", "-n", "default")

	// Only mirror pods bound to itself, referencing nothing.
	mustFail("can only create mirror pods", "run", "rogue", "--image=busybox", "-n", "default", "--overrides", `{"spec":{"nodeName":"n1"}}`)
	nodeUID := strings.TrimSpace(s.MustKubectl(t, "get", "node", "n1", "-o", "jsonpath={.metadata.uid}"))
	mustWork("create", "-f", write("mirror.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: static-web-n1
  namespace: default
  annotations: {kubernetes.io/config.mirror: "hash"}
  ownerReferences:
  - {apiVersion: v1, kind: Node, name: n1, uid: `+nodeUID+`, controller: true}
spec:
  nodeName: n1
  containers: [{name: web, image: nginx}]
`))

	// Tokens only for the audiences the node's pods name, until RBAC grants more.
	uid := strings.TrimSpace(s.MustKubectl(t, "get", "pod", "p1", "-n", "default", "-o", "jsonpath={.metadata.uid}"))
	token := []string{"create", "token", "sa1", "-n", "default", "--bound-object-kind=Pod", "--bound-object-name=p1", "--bound-object-uid=" + uid}
	mustWork(append(token, "--audience=vault")...)
	mustFail(`system:node:n1 is not authorized to request tokens for audience "other"`, append(token, "--audience=other")...)
	s.MustKubectl(t, "apply", "-f", write("audience-rbac.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: audience-access
rules:
- verbs: ["request-serviceaccounts-token-audience"]
  apiGroups: [""]
  resources: ["other"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: audience-access
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: audience-access}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:nodes}
`))
	eventuallyKubectl(t, s, "eyJ", append([]string{"--kubeconfig", n1}, append(token, "--audience=other")...)...)
}
