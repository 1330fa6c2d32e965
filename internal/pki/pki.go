package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Files names the PEM files of the generated PKI.
type Files struct {
	CACert, CAKey           string
	ServingCert, ServingKey string
	AdminCert, AdminKey     string
}

// FilesIn returns the standard file names under dir.
func FilesIn(dir string) Files {
	j := func(n string) string { return filepath.Join(dir, n) }
	return Files{
		CACert: j("ca.crt"), CAKey: j("ca.key"),
		ServingCert: j("serving.crt"), ServingKey: j("serving.key"),
		AdminCert: j("admin.crt"), AdminKey: j("admin.key"),
	}
}

const validity = 10 * 365 * 24 * time.Hour

// Ensure makes sure the CA, a serving certificate valid for hosts and the
// admin client certificate exist under dir, generating what is missing. A
// serving certificate that lacks one of hosts is regenerated, so a changed
// --bind-address keeps working.
func Ensure(dir string, hosts []string) (Files, error) {
	f := FilesIn(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, fmt.Errorf("creating %s: %w", dir, err)
	}
	caCert, caKey, err := loadPair(f.CACert, f.CAKey)
	if errors.Is(err, os.ErrNotExist) {
		caCert, caKey, err = newCA()
		if err == nil {
			err = writePair(f.CACert, f.CAKey, caCert, caKey)
		}
	}
	if err != nil {
		return f, fmt.Errorf("certificate authority: %w", err)
	}
	serving, _, err := loadPair(f.ServingCert, f.ServingKey)
	if err != nil || !covers(serving, hosts) || serving.CheckSignatureFrom(caCert) != nil {
		cert, key, err := issue(caCert, caKey, servingTemplate(hosts))
		if err != nil {
			return f, fmt.Errorf("serving certificate: %w", err)
		}
		if err := writePair(f.ServingCert, f.ServingKey, cert, key); err != nil {
			return f, err
		}
	}
	admin, _, err := loadPair(f.AdminCert, f.AdminKey)
	if err != nil || admin.CheckSignatureFrom(caCert) != nil {
		cert, key, err := issue(caCert, caKey, clientTemplate("admin", []string{"system:masters"}))
		if err != nil {
			return f, fmt.Errorf("admin certificate: %w", err)
		}
		if err := writePair(f.AdminCert, f.AdminKey, cert, key); err != nil {
			return f, err
		}
	}
	return f, nil
}

func covers(c *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if c.VerifyHostname(h) != nil {
			return false
		}
	}
	return time.Now().Before(c.NotAfter)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func newCA() (*x509.Certificate, crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("portcullis-ca@%d", now.Unix())},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func servingTemplate(hosts []string) *x509.Certificate {
	t := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "portcullis"},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			t.IPAddresses = append(t.IPAddresses, ip)
		} else if h != "" {
			t.DNSNames = append(t.DNSNames, h)
		}
	}
	return t
}

func clientTemplate(cn string, orgs []string) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: orgs},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

// IssueClient signs a client certificate for user cn in groups orgs with
// the CA under dir; tests and tools use it to mint identities.
func IssueClient(f Files, cn string, orgs []string) (certPEM, keyPEM []byte, err error) {
	caCert, caKey, err := loadPair(f.CACert, f.CAKey)
	if err != nil {
		return nil, nil, err
	}
	cert, key, err := issue(caCert, caKey, clientTemplate(cn, orgs))
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), keyPEM, nil
}

func issue(ca *x509.Certificate, caKey crypto.Signer, tmpl *x509.Certificate) (*x509.Certificate, crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl.SerialNumber = sn
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(validity)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

func writePair(certPath, keyPath string, cert *x509.Certificate, key crypto.Signer) error {
	keyPEM, err := encodeKey(key)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return err
	}
	return WriteFileAtomic(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644)
}

func loadPair(certPath, keyPath string) (*x509.Certificate, crypto.Signer, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, fmt.Errorf("%s or %s: no PEM data", certPath, keyPath)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", certPath, err)
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", keyPath, err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a signing key", keyPath)
	}
	return cert, signer, nil
}

// WriteFileAtomic writes data to path through a temporary file and a
// rename, syncing the file first, so readers never see a partial file.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// NewClientInMemory makes a new CA and a client certificate it signed for
// cn in orgs, kept in memory only: the front proxy of an offline run,
// whose requests never cross a TLS handshake.
func NewClientInMemory(cn string, orgs []string) (ca, client *x509.Certificate, err error) {
	ca, caKey, err := newCA()
	if err != nil {
		return nil, nil, err
	}
	client, _, err = issue(ca, caKey, clientTemplate(cn, orgs))
	return ca, client, err
}
