package e2e

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// TestWebhookAuthorizer runs a real webhook authorizer over HTTPS: it
// allows user "carol" to list pods, denies "mallory" everything, and has no
// opinion on anyone else.
func TestWebhookAuthorizer(t *testing.T) {
	t.Parallel()
	var podCalls atomic.Int64
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sar authorizationv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&sar); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ra := sar.Spec.ResourceAttributes
		switch {
		case sar.Spec.User == "carol" && ra != nil && ra.Resource == "pods" && ra.Verb == "list":
			podCalls.Add(1)
			sar.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "carol may list pods"}
		case sar.Spec.User == "mallory":
			sar.Status = authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "mallory is banned"}
		}
		_ = json.NewEncoder(w).Encode(&sar)
	}))
	defer hook.Close()

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["hook"] = &clientcmdapi.Cluster{Server: hook.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})}
	cfg.AuthInfos["apiserver"] = &clientcmdapi.AuthInfo{Token: "secret"}
	cfg.Contexts["hook"] = &clientcmdapi.Context{Cluster: "hook", AuthInfo: "apiserver"}
	cfg.CurrentContext = "hook"
	kc := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	authzCfg := filepath.Join(t.TempDir(), "authz.yaml")
	if err := os.WriteFile(authzCfg, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: policy
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    authorizedTTL: 5m
    unauthorizedTTL: 30s
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: `+kc+`
    matchConditions:
    - expression: "!request.user.startsWith('system:')"
- type: Node
  name: node
- type: RBAC
  name: rbac
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--authorization-config", authzCfg)
	// One certificate per user: its fingerprint is part of the identity
	// (the credential-id extra), so a new one would miss the cache.
	kubeconfigs := map[string]string{}
	as := func(user string, args ...string) (string, error) {
		if kubeconfigs[user] == "" {
			kubeconfigs[user] = kubeconfigFor(t, s, "", user)
		}
		out, errOut, err := s.Kubectl(t, append([]string{"--kubeconfig", kubeconfigs[user]}, args...)...)
		return out + errOut, err
	}
	if out, err := as("carol", "get", "pods", "-n", "default"); err != nil || !strings.Contains(out, "No resources found") {
		t.Errorf("carol: %v %s", err, out)
	}
	if out, err := as("carol", "get", "pods", "-n", "default"); err != nil {
		t.Errorf("carol again: %v %s", err, out)
	}
	// The second decision came from the authorized cache (5m TTL).
	if n := podCalls.Load(); n != 1 {
		t.Errorf("the webhook was asked %d times about carol listing pods, want 1", n)
	}
	if out, err := as("carol", "get", "secrets", "-n", "default"); err == nil || !strings.Contains(out, `User "carol" cannot list resource "secrets"`) {
		t.Errorf("carol secrets: %v %s", err, out)
	}
	// A webhook deny stops the chain: RBAC is never asked.
	s.MustKubectl(t, "create", "clusterrolebinding", "mallory-admin", "--clusterrole=cluster-admin", "--user=mallory")
	if out, err := as("mallory", "get", "pods", "-n", "default"); err == nil || !strings.Contains(out, "mallory is banned") {
		t.Errorf("mallory: %v %s", err, out)
	}
	if out := s.MustKubectl(t, "auth", "can-i", "list", "pods", "--as", "carol"); strings.TrimSpace(out) != "yes" {
		t.Errorf("can-i as carol: %q", out)
	}
}
