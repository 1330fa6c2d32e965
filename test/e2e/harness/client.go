package harness

import (
	"net/http"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfig is the admin client configuration from the server's
// kubeconfig, without client-side rate limiting (tests measure the server).
// Make a new one after Restart: the address changes.
func (s *Server) RESTConfig(t testing.TB) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatalf("loading %s: %v", s.Kubeconfig, err)
	}
	cfg.QPS = -1
	cfg.UserAgent = "portcullis-e2e"
	return cfg
}

// Client is a typed client-go clientset acting as the admin.
func (s *Server) Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(s.RESTConfig(t))
	if err != nil {
		t.Fatalf("creating clientset: %v", err)
	}
	return c
}

// HTTPClient is a plain HTTP client that trusts the server's CA and presents
// the admin client certificate, for requests no typed client makes.
func (s *Server) HTTPClient(t testing.TB) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(s.RESTConfig(t))
	if err != nil {
		t.Fatalf("creating HTTP client: %v", err)
	}
	return c
}
