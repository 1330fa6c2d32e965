package tokenwebhook

import (
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
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

func (c *fakeClock) waited() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// answer is one response of the fake webhook.
type answer struct {
	code        int
	contentType string
	body        string
}

// allowed and friends are common v1 answers.
const (
	allowedV1 = `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{"authenticated":true,"user":{"username":"alice","uid":"u-1","groups":["dev"]}}}`
	deniedV1  = `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","status":{"authenticated":false}}`
)

func ok(body string) answer { return answer{code: http.StatusOK, body: body} }

// call is one request the fake webhook received.
type call struct {
	method, path, query, auth, contentType, accept string
	body                                           string
}

// fakeWebhook is an HTTPS token webhook answering from a script; the
// last answer repeats. When hold is set, each request first announces
// itself on arrived and then waits for hold to be closed.
type fakeWebhook struct {
	mu      sync.Mutex
	answers []answer
	calls   []call
	arrived chan struct{}
	hold    chan struct{}
}

func (w *fakeWebhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	w.calls = append(w.calls, call{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery,
		auth: r.Header.Get("Authorization"), contentType: r.Header.Get("Content-Type"),
		accept: r.Header.Get("Accept"), body: string(body)})
	a := w.answers[min(len(w.calls), len(w.answers))-1]
	arrived, hold := w.arrived, w.hold
	w.mu.Unlock()
	if hold != nil {
		arrived <- struct{}{}
		<-hold
	}
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
// (with the path /authenticate and a bearer token); it returns the
// kubeconfig's path and the server.
func serve(t testing.TB, w http.Handler) (string, *httptest.Server) {
	t.Helper()
	srv := httptest.NewTLSServer(w)
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["authn"] = &clientcmdapi.Cluster{Server: srv.URL + "/authenticate", CertificateAuthorityData: ca}
	cfg.AuthInfos["apiserver"] = &clientcmdapi.AuthInfo{Token: "webhook-secret"}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "authn", AuthInfo: "apiserver"}
	cfg.CurrentContext = "default"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, srv
}

// noJitter is kube-apiserver's schedule without its randomness, so that
// the waits can be compared.
func noJitter() *wait.Backoff {
	b := DefaultBackoff()
	b.Jitter = 0
	return &b
}

// newTest serves the answers and returns the authenticator (over the
// fake clock) and the webhook.
func newTest(t *testing.T, cfg Config, answers ...answer) (*Authenticator, *fakeWebhook, *fakeClock) {
	t.Helper()
	w := &fakeWebhook{answers: answers}
	path, _ := serve(t, w)
	clk := newFakeClock()
	cfg.KubeconfigFile = path
	if cfg.Version == "" {
		cfg.Version = "v1"
	}
	if cfg.Backoff == nil {
		cfg.Backoff = noJitter()
	}
	cfg.Clock = clk
	if cfg.Logger == nil {
		cfg.Logger = discard()
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, w, clk
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
