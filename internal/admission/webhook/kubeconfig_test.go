package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

// clientCertPEM makes a self-signed client certificate and its key.
func clientCertPEM(t *testing.T, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// credServer records what credentials each call presented.
type credServer struct {
	*server
	mu   sync.Mutex
	seen []string
}

func newCredServer(t *testing.T) *credServer {
	cs := &credServer{}
	cs.server = rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		seen := r.Header.Get("Authorization")
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			seen = "cert:" + r.TLS.PeerCertificates[0].Subject.CommonName
		}
		cs.mu.Lock()
		cs.seen = append(cs.seen, seen)
		cs.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		var review admissionv1.AdmissionReview
		_ = json.Unmarshal(body, &review)
		out := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}}
		_ = json.NewEncoder(w).Encode(&out)
	})
	cs.TLS.ClientAuth = tls.RequestClientCert
	return cs
}

func TestKubeconfigCredentials(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := clientCertPEM(t, "apiserver")
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("filetoken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		users func(host string) string
		want  string
	}{
		{name: "token by host:port", users: func(host string) string {
			return "- name: '" + host + "'\n  user:\n    token: secret\n- name: '*'\n  user:\n    username: u\n    password: p\n"
		}, want: "Bearer secret"},
		{name: "token file", users: func(host string) string {
			return "- name: '" + host + "'\n  user:\n    tokenFile: " + filepath.Join(dir, "token") + "\n"
		}, want: "Bearer filetoken"},
		{name: "default user basic auth", users: func(string) string {
			return "- name: 'other:443'\n  user:\n    token: wrong\n- name: '*'\n  user:\n    username: u\n    password: p\n"
		}, want: "Basic dTpw"},
		{name: "client certificate", users: func(host string) string {
			return "- name: '" + host + "'\n  user:\n    client-certificate-data: " + b64(certPEM) + "\n    client-key-data: " + b64(keyPEM) + "\n"
		}, want: "cert:apiserver"},
		{name: "no match", users: func(string) string {
			return "- name: '*.example.com'\n  user:\n    token: wrong\n"
		}, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := newCredServer(t)
			host := strings.TrimPrefix(cs.URL, "https://")
			path := filepath.Join(dir, "kubeconfig")
			kc := "apiVersion: v1\nkind: Config\nusers:\n" + tc.users(host)
			if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
				t.Fatal(err)
			}
			v, err := NewValidating(Options{Namespaces: namespaces, KubeconfigFile: path})
			if err != nil {
				t.Fatal(err)
			}
			v.Upsert(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{vhook("cred.example.com", cs.server)}})
			if err := v.Validate(t.Context(), podAttrs(admission.Create, nil)); err != nil {
				t.Fatal(err)
			}
			if len(cs.seen) != 1 || cs.seen[0] != tc.want {
				t.Fatalf("server saw %q, want %q", cs.seen, tc.want)
			}
		})
	}
}

func TestKubeconfigUnsupported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := "apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n"
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewMutating(Options{KubeconfigFile: path}); !errors.Is(err, ErrCredentialNotSupported) {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewMutating(Options{KubeconfigFile: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Fatal("missing kubeconfig accepted")
	}
}

func b64(b []byte) string {
	return base64Std.EncodeToString(b)
}

var base64Std = base64.StdEncoding
