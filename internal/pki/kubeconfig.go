package pki

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteKubeconfig writes a kubeconfig for server that trusts caFile and
// authenticates with the given client certificate, embedding the PEM data
// so the file works when copied elsewhere.
func WriteKubeconfig(path, server, caFile, certFile, keyFile string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["portcullis"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["admin@portcullis"] = &clientcmdapi.Context{Cluster: "portcullis", AuthInfo: "admin"}
	cfg.CurrentContext = "admin@portcullis"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("encoding kubeconfig: %w", err)
	}
	return WriteFileAtomic(path, data, 0o600)
}
