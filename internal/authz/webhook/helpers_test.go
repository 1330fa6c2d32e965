package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// pki is a CA with a server certificate for 127.0.0.1 and a client
// certificate, written to a directory.
type pki struct {
	dir        string
	caPool     *x509.CertPool
	serverCert tls.Certificate
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) ([]byte, []byte) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
			IPAddresses:  ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalECPrivateKey(key)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	}
	srvCert, srvKey := issue(2, "webhook", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")})
	cliCert, cliKey := issue(3, "apiserver", x509.ExtKeyUsageClientAuth, nil)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.crt", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	write("client.crt", cliCert)
	write("client.key", cliKey)
	pair, err := tls.X509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &pki{dir: dir, caPool: pool, serverCert: pair}
}

// fakeWebhook is a real HTTPS authorization webhook on 127.0.0.1 that
// requires a client certificate of the test CA.
type fakeWebhook struct {
	srv   *httptest.Server
	calls atomic.Int64
	token string // when set, the bearer token required

	mu      sync.Mutex
	answer  http.HandlerFunc
	last    []byte // the last review received
	headers http.Header
}

func newFakeWebhook(t testing.TB, p *pki) *fakeWebhook {
	return newFakeWebhookWith(t, p, true, "")
}

// newFakeWebhookWith starts a webhook that requires a client certificate
// or, when token is set, that bearer token.
func newFakeWebhookWith(t testing.TB, p *pki, requireCert bool, token string) *fakeWebhook {
	t.Helper()
	f := &fakeWebhook{token: token}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{p.serverCert},
		ClientCAs:    p.caPool,
		MinVersion:   tls.VersionTLS12,
	}
	if requireCert {
		f.srv.TLS.ClientAuth = tls.RequireAndVerifyClientCert
	}
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	f.setAnswer(allowWith("ok"))
	return f
}

func (f *fakeWebhook) serve(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.last = body
	f.headers = r.Header.Clone()
	answer := f.answer
	f.mu.Unlock()
	answer(w, r)
}

func (f *fakeWebhook) setAnswer(h http.HandlerFunc) {
	f.mu.Lock()
	f.answer = h
	f.mu.Unlock()
}

func (f *fakeWebhook) lastReview() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// status answers a review with the given status, in the version asked.
func status(st authorizationv1.SubjectAccessReviewStatus) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"apiVersion": "authorization.k8s.io/v1",
			"kind":       "SubjectAccessReview",
			"status":     st,
		})
	}
}

func allowWith(reason string) http.HandlerFunc {
	return status(authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: reason})
}

func raw(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// kubeconfig writes a kubeconfig for the webhook. Certificate paths are
// relative, so they must resolve against the kubeconfig's directory.
func kubeconfig(t testing.TB, p *pki, server string, withClientCert bool, token string) string {
	t.Helper()
	user := "{}"
	switch {
	case withClientCert:
		user = "{client-certificate: client.crt, client-key: client.key}"
	case token != "":
		user = "{token: " + token + "}"
	}
	data := `apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster:
    server: ` + server + `
    certificate-authority: ca.crt
users:
- name: apiserver
  user: ` + user + `
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
`
	path := filepath.Join(p.dir, "kubeconfig-"+time.Now().Format("150405.000000000"))
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fastBackoff keeps retry tests quick.
func fastBackoff(steps int) *wait.Backoff {
	return &wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: steps}
}

// podsList is a resource request of alice.
func podsList(name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User:            &user.DefaultInfo{Name: name, UID: "uid-" + name, Groups: []string{"dev", "system:authenticated"}},
		Verb:            "list",
		Namespace:       "default",
		APIVersion:      "v1",
		Resource:        "pods",
		ResourceRequest: true,
		Path:            "/api/v1/namespaces/default/pods",
	}
}

func healthz(name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: name},
		Verb: "get",
		Path: "/healthz",
	}
}

var background = context.Background()

func (f *fakeWebhook) header(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers.Get(name)
}
