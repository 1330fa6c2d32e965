package etcd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"

	"github.com/portcullis/portcullis/internal/storage"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, as PEM files.
type testPKI struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := newKey()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(serial int64, cn string, usage []x509.ExtKeyUsage, ips []net.IP) (cert, key string) {
		k := newKey()
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return write(cn+".crt", "CERTIFICATE", der), write(cn+".key", "PRIVATE KEY", keyDER)
	}
	p := testPKI{ca: write("ca.crt", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = issue(2, "etcd-server", []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, []net.IP{net.IPv4(127, 0, 0, 1)})
	p.clientCert, p.clientKey = issue(3, "portcullis", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, nil)
	return p
}

// TestTLS runs a store against an etcd that requires client certificates
// signed by its CA, then stops that etcd and checks that Check reports it.
func TestTLS(t *testing.T) {
	pki := newTestPKI(t)
	e, endpoint, err := startEtcd(t.TempDir(), &transport.TLSInfo{
		CertFile: pki.serverCert, KeyFile: pki.serverKey, TrustedCAFile: pki.ca, ClientCertAuth: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			e.Close()
		}
	}()
	if !strings.HasPrefix(endpoint, "https://") {
		t.Fatalf("endpoint %s is not https", endpoint)
	}
	ctx := t.Context()
	s, err := Open(ctx, Config{
		Endpoints: []string{endpoint}, CAFile: pki.ca, CertFile: pki.clientCert, KeyFile: pki.clientKey,
		DialTimeout: 10 * time.Second, Logger: quietSlog(),
	})
	if err != nil {
		t.Fatalf("Open with a client certificate: %v", err)
	}
	defer s.Close()
	kv, err := s.Create(ctx, "/registry/tls/a", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "/registry/tls/a"); err != nil || got.ModRevision != kv.ModRevision {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}

	t.Run("no client certificate", func(t *testing.T) {
		octx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		s, err := Open(octx, Config{Endpoints: []string{endpoint}, CAFile: pki.ca, DialTimeout: 2 * time.Second, Logger: quietSlog()})
		if err == nil {
			s.Close()
			t.Fatal("Open without a client certificate succeeded")
		}
	})
	t.Run("untrusted server", func(t *testing.T) {
		other := newTestPKI(t)
		octx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		s, err := Open(octx, Config{
			Endpoints: []string{endpoint}, CAFile: other.ca, CertFile: pki.clientCert, KeyFile: pki.clientKey,
			DialTimeout: 2 * time.Second, Logger: quietSlog(),
		})
		if err == nil {
			s.Close()
			t.Fatal("Open trusting another CA succeeded")
		}
	})

	t.Run("stopped etcd", func(t *testing.T) {
		e.Close()
		stopped = true
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		err := s.Check(cctx)
		if err == nil || !strings.HasPrefix(err.Error(), "error getting data from etcd: ") {
			t.Fatalf("Check against a stopped etcd = %v, want kube-apiserver's error", err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Logf("Check error (not the deadline): %v", err)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	t.Run("missing files", func(t *testing.T) {
		_, err := Open(t.Context(), Config{Endpoints: []string{shared.url}, CAFile: filepath.Join(t.TempDir(), "nope.crt")})
		if err == nil {
			t.Fatal("Open with a missing CA file succeeded")
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		s, err := Open(ctx, Config{Endpoints: []string{"http://127.0.0.1:" + itoa(port)}, Logger: quietSlog()})
		if err == nil {
			s.Close()
			t.Fatal("Open with nothing listening succeeded")
		}
	})
	t.Run("plain", func(t *testing.T) {
		s, err := Open(t.Context(), Config{Endpoints: []string{shared.url}, Logger: quietSlog()})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if err := s.Check(t.Context()); !errors.Is(err, storage.ErrClosed) {
			t.Fatalf("Check after Close: %v", err)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error, one per problem
	}{
		{"valid", Config{Endpoints: []string{"http://127.0.0.1:2379", "https://etcd:2379"}}, nil},
		{"no endpoints", Config{}, []string{"endpoints: at least one"}},
		{"bad endpoints", Config{Endpoints: []string{"127.0.0.1:2379", "ftp://x", "http://"}},
			[]string{"endpoints[0]", "endpoints[1]", "endpoints[2]"}},
		{"cert without key", Config{Endpoints: []string{"https://e:2379"}, CertFile: "c"}, []string{"certFile, keyFile"}},
		{"negative durations", Config{Endpoints: []string{"http://e:2379"}, DialTimeout: -1, CompactInterval: -1},
			[]string{"dialTimeout", "compactInterval"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("Validate = %v, want ErrInvalidConfig", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
