package imagepolicy

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeClock never blocks: After moves the time on by the wait asked for
// and records it.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: epoch} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func (c *fakeClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// answer is one response of the fake webhook.
type answer struct {
	code        int
	contentType string
	body        string
}

// call is one request the fake webhook received.
type call struct {
	path, query, auth, contentType string
	body                           string
}

// fakeWebhook is an HTTPS image policy webhook answering from a script;
// the last answer repeats.
type fakeWebhook struct {
	mu      sync.Mutex
	answers []answer
	calls   []call
}

func (w *fakeWebhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	w.calls = append(w.calls, call{path: r.URL.Path, query: r.URL.RawQuery, auth: r.Header.Get("Authorization"),
		contentType: r.Header.Get("Content-Type"), body: string(body)})
	a := w.answers[min(len(w.calls), len(w.answers))-1]
	w.mu.Unlock()
	ct := a.contentType
	if ct == "" {
		ct = "application/json"
	}
	rw.Header().Set("Content-Type", ct)
	rw.WriteHeader(a.code)
	_, _ = io.WriteString(rw, a.body)
}

func (w *fakeWebhook) received() []call {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]call(nil), w.calls...)
}

// serve starts w on 127.0.0.1 over TLS and writes a kubeconfig naming it
// (with the path /imagepolicy and a bearer token); it returns the
// kubeconfig's path.
func serve(t *testing.T, w *fakeWebhook) string {
	t.Helper()
	srv := httptest.NewTLSServer(w)
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["policy"] = &clientcmdapi.Cluster{Server: srv.URL + "/imagepolicy", CertificateAuthorityData: ca}
	cfg.AuthInfos["apiserver"] = &clientcmdapi.AuthInfo{Token: "secret"}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "policy", AuthInfo: "apiserver"}
	cfg.CurrentContext = "default"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
