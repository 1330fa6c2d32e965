package tokenwebhook

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestNewErrors(t *testing.T) {
	// Inside a pod, client-go would fall back to the in-cluster
	// configuration for an empty kubeconfig, as kube-apiserver's does.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	good, _ := serve(t, &fakeWebhook{answers: []answer{ok(allowedV1)}})
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("{not yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	noContext := filepath.Join(dir, "no-context")
	if err := os.WriteFile(noContext, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{
			name:    "no file",
			cfg:     Config{Version: "v1"},
			wantErr: "webhook token authenticator: invalid configuration: no kubeconfig file given",
		},
		{
			name:    "missing file",
			cfg:     Config{KubeconfigFile: missing, Version: "v1"},
			wantErr: "stat " + missing + ": no such file or directory",
		},
		{
			name:    "not a kubeconfig",
			cfg:     Config{KubeconfigFile: garbage, Version: "v1"},
			wantErr: `error loading config file "` + garbage + `": yaml: line 1: did not find expected ',' or '}'`,
		},
		{
			name:    "no current context",
			cfg:     Config{KubeconfigFile: noContext, Version: "v1"},
			wantErr: "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable",
		},
		{
			name:    "unknown version",
			cfg:     Config{KubeconfigFile: good, Version: "v2"},
			wantErr: `unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"`,
		},
		{
			name:    "empty version",
			cfg:     Config{KubeconfigFile: good},
			wantErr: `unsupported authentication webhook version "", supported versions are "v1", "v1beta1"`,
		},
		{
			name:    "the file is read before the version",
			cfg:     Config{KubeconfigFile: missing, Version: "v2"},
			wantErr: "stat " + missing + ": no such file or directory",
		},
		{
			name:    "no attempts",
			cfg:     Config{KubeconfigFile: good, Version: "v1", Backoff: &wait.Backoff{Steps: 0}},
			wantErr: "number of webhook retry attempts must be greater than 0, but is: 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(tt.cfg)
			if err == nil {
				t.Fatalf("New = %v, want an error", a)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %v is not ErrConfig", err)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error\n%s\nwant\n%s", err, tt.wantErr)
			}
		})
	}
}

// TestRelativePaths: file names in the kubeconfig are relative to it, as
// kube-apiserver reads them.
func TestRelativePaths(t *testing.T) {
	w := &fakeWebhook{answers: []answer{ok(`{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenReview","status":{"authenticated":true,"user":{"username":"alice"}}}`)}}
	srv := httptest.NewTLSServer(w)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	kubeconfig := "apiVersion: v1\nkind: Config\ncurrent-context: c\n" +
		"clusters:\n- name: c\n  cluster:\n    server: " + srv.URL + "/hook\n    certificate-authority: ca.crt\n" +
		"contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n" +
		"users:\n- name: u\n  user:\n    token: s3cret\n"
	path := filepath.Join(dir, "kubeconfig.yaml")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{KubeconfigFile: path, Version: DefaultVersion, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	u, ok, err := a.AuthenticateToken(context.Background(), "t0k3n")
	if err != nil || !ok || u.GetName() != "alice" {
		t.Fatalf("AuthenticateToken = %v, %v, %v; want alice", u, ok, err)
	}
	got := w.received()
	if len(got) != 1 || got[0].path != "/hook" || got[0].auth != "Bearer s3cret" {
		t.Errorf("received %+v, want one request to /hook with the kubeconfig's token", got)
	}
}
