package e2e

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// adminKubeconfig loads the server's kubeconfig and returns its only cluster
// and user.
func adminKubeconfig(t *testing.T, path string) (*clientcmdapi.Cluster, *clientcmdapi.AuthInfo) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil || cfg.AuthInfos[ctx.AuthInfo] == nil {
		t.Fatalf("%s: current context %q does not name a cluster and a user", path, cfg.CurrentContext)
	}
	return cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo]
}

func TestServe(t *testing.T) {
	t.Parallel()

	t.Run("version", func(t *testing.T) {
		out, err := exec.Command(harness.BuildPortcullis(t), "version").CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) == 0 {
			t.Errorf("portcullis version: %v, output %q", err, out)
		}
	})

	s := harness.Start(t)
	var firstCA []byte

	step(t, "the admin kubeconfig", func(t *testing.T) {
		if want := filepath.Join(s.DataDir, "admin.kubeconfig"); s.Kubeconfig != want {
			t.Errorf("ready line names kubeconfig %s, want %s", s.Kubeconfig, want)
		}
		cluster, user := adminKubeconfig(t, s.Kubeconfig)
		if cluster.Server != s.URL {
			t.Errorf("kubeconfig server %q, ready line address %q", cluster.Server, s.URL)
		}
		firstCA = cluster.CertificateAuthorityData
		block, _ := pem.Decode(user.ClientCertificateData)
		if block == nil {
			t.Fatalf("the kubeconfig holds no client certificate")
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if cert.Subject.CommonName != "admin" || !slices.Equal(cert.Subject.Organization, []string{"system:masters"}) {
			t.Errorf("client certificate subject %v, want CN=admin, O=system:masters", cert.Subject)
		}
		if _, err := os.Stat(filepath.Join(s.DataDir, "db", "portcullis.db")); err != nil {
			t.Errorf("the embedded store: %v", err)
		}
	})

	step(t, "data and identity survive a restart", func(t *testing.T) {
		ctx := context.Background()
		cm, err := s.Client(t).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Restart()
		cluster, _ := adminKubeconfig(t, s.Kubeconfig)
		if cluster.Server != s.URL {
			t.Errorf("after restart: kubeconfig server %q, ready line address %q", cluster.Server, s.URL)
		}
		if !bytes.Equal(cluster.CertificateAuthorityData, firstCA) {
			t.Errorf("the CA changed across a restart")
		}
		got, err := s.Client(t).CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("after restart: %v", err)
		}
		if got.UID != cm.UID || got.ResourceVersion != cm.ResourceVersion {
			t.Errorf("after restart: uid %s resourceVersion %s, want %s %s", got.UID, got.ResourceVersion, cm.UID, cm.ResourceVersion)
		}
	})

	t.Run("SIGTERM with a watch open stops promptly", func(t *testing.T) {
		w, err := s.Client(t).CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		// Stop fails the test on a non-zero exit, and when the server is
		// still up 20 s after SIGTERM, well before the 60 s shutdown
		// deadline an open watch would hold it to.
		s.Stop()
		out := s.Output()
		out = out[strings.LastIndex(out, "--- start"):] // this run of the server
		if strings.Contains(out, "did not finish before the shutdown deadline") || !strings.Contains(out, "msg=stopped") {
			t.Errorf("the open watch held up the shutdown:\n%s", out)
		}
		for range w.ResultChan() {
		}
	})
}
