package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/portcullis/portcullis/internal/pki"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// kubeconfigFor writes a kubeconfig for s that authenticates with the
// given token, or with a client certificate for user in groups when token
// is empty, and returns its path.
func kubeconfigFor(t *testing.T, s *harness.Server, token, user string, groups ...string) string {
	t.Helper()
	ca, err := os.ReadFile(filepath.Join(s.DataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	auth := &clientcmdapi.AuthInfo{Token: token}
	if token == "" {
		cert, key, err := pki.IssueClient(pki.FilesIn(filepath.Join(s.DataDir, "pki")), user, groups)
		if err != nil {
			t.Fatal(err)
		}
		auth = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: ca}
	cfg.AuthInfos["u"] = auth
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestServiceAccountTokens(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	s.MustKubectl(t, "create", "serviceaccount", "robot")
	token := strings.TrimSpace(s.MustKubectl(t, "create", "token", "robot", "--duration=20m"))
	if strings.Count(token, ".") != 2 {
		t.Fatalf("kubectl create token printed %q", token)
	}
	kc := kubeconfigFor(t, s, token, "")
	out := s.MustKubectl(t, "--kubeconfig", kc, "auth", "whoami")
	for _, want := range []string{"system:serviceaccount:default:robot", "system:serviceaccounts:default", "authentication.kubernetes.io/credential-id"} {
		if !strings.Contains(out, want) {
			t.Errorf("whoami lacks %q:\n%s", want, out)
		}
	}

	// A token outlives neither its service account nor a forged signature.
	forged := token[:strings.LastIndex(token, ".")+1] + "AAAA"
	if _, errOut, err := s.Kubectl(t, "--kubeconfig", kubeconfigFor(t, s, forged, ""), "auth", "whoami"); err == nil || !strings.Contains(errOut, "Unauthorized") && !strings.Contains(errOut, "provide credentials") {
		t.Errorf("forged token: err=%v stderr=%s", err, errOut)
	}
	// Successful authentications are cached for 10 s, as in kube-apiserver,
	// so a deleted service account's token stops working once that passes
	// (the unit tests of internal/authn/cache hold the 10 s on a fake
	// clock; here the wait is generous).
	s.MustKubectl(t, "delete", "serviceaccount", "robot")
	eventually(t, "the token of a deleted service account refused", func() error {
		if _, _, err := s.Kubectl(t, "--kubeconfig", kc, "auth", "whoami"); err == nil {
			return errors.New("still accepted")
		}
		return nil
	})

	// Client certificates name the user and groups.
	out = s.MustKubectl(t, "--kubeconfig", kubeconfigFor(t, s, "", "jane", "devs"), "auth", "whoami")
	if !strings.Contains(out, "jane") || !strings.Contains(out, "[devs system:authenticated]") {
		t.Errorf("certificate whoami:\n%s", out)
	}
}
