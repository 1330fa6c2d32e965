package etcdtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Certs are PEM files for a TLS cluster: one CA signs the server
// certificate (for 127.0.0.1 and localhost) and the client certificate
// the members require.
type Certs struct {
	CAFile                        string
	ServerCertFile, ServerKeyFile string
	ClientCertFile, ClientKeyFile string
}

// newCerts generates a CA, a server and a client certificate into dir.
func newCerts(dir string) (*Certs, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("certificate directory: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("CA key: %w", err)
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "etcdtest-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	c := &Certs{CAFile: filepath.Join(dir, "ca.crt")}
	if err := writePEM(c.CAFile, "CERTIFICATE", caDER); err != nil {
		return nil, err
	}
	leaves := []struct {
		serial        int64
		name          string
		usage         x509.ExtKeyUsage
		certFile, key *string
		ips           []net.IP
		dnsNames      []string
	}{
		{serial: 2, name: "server", usage: x509.ExtKeyUsageServerAuth, certFile: &c.ServerCertFile, key: &c.ServerKeyFile,
			ips: []net.IP{net.IPv4(127, 0, 0, 1)}, dnsNames: []string{"localhost"}},
		{serial: 3, name: "client", usage: x509.ExtKeyUsageClientAuth, certFile: &c.ClientCertFile, key: &c.ClientKeyFile},
	}
	for _, l := range leaves {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("%s key: %w", l.name, err)
		}
		template := &x509.Certificate{
			SerialNumber: big.NewInt(l.serial),
			Subject:      pkix.Name{CommonName: "etcdtest-" + l.name},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{l.usage},
			IPAddresses:  l.ips,
			DNSNames:     l.dnsNames,
		}
		der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
		if err != nil {
			return nil, fmt.Errorf("%s certificate: %w", l.name, err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return nil, fmt.Errorf("%s key: %w", l.name, err)
		}
		*l.certFile, *l.key = filepath.Join(dir, l.name+".crt"), filepath.Join(dir, l.name+".key")
		if err := writePEM(*l.certFile, "CERTIFICATE", der); err != nil {
			return nil, err
		}
		if err := writePEM(*l.key, "EC PRIVATE KEY", keyDER); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func writePEM(path, blockType string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
