package authn

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/portcullis/portcullis/internal/pki"
)

func certRequest(t *testing.T, certPEM []byte) *tls.ConnectionState {
	t.Helper()
	b, _ := pem.Decode(certPEM)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c}}
}

func TestX509(t *testing.T) {
	files, err := pki.Ensure(t.TempDir(), []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.Ensure(t.TempDir(), []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(files.CACert)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	a := Union{NewX509(func() *x509.CertPool { return pool })}

	good, _, _ := pki.IssueClient(files, "alice", []string{"devs", "ops"})
	foreign, _, _ := pki.IssueClient(other, "mallory", nil)
	tests := []struct {
		name    string
		tls     *tls.ConnectionState
		ok      bool
		wantErr bool
		user    string
		groups  []string
	}{
		{"no certificate", &tls.ConnectionState{}, false, false, "", nil},
		{"plain http", nil, false, false, "", nil},
		{"signed by the CA", certRequest(t, good), true, false, "alice", []string{"devs", "ops", "system:authenticated"}},
		{"signed again (cached)", certRequest(t, good), true, false, "alice", []string{"devs", "ops", "system:authenticated"}},
		{"another CA", certRequest(t, foreign), false, true, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api", nil)
			r.TLS = tt.tls
			u, ok, err := a.AuthenticateRequest(r)
			if ok != tt.ok || (err != nil) != tt.wantErr {
				t.Fatalf("ok=%v err=%v, want ok=%v err=%v", ok, err, tt.ok, tt.wantErr)
			}
			if !ok {
				return
			}
			if u.GetName() != tt.user {
				t.Errorf("user %q, want %q", u.GetName(), tt.user)
			}
			if diff := cmp.Diff(tt.groups, u.GetGroups(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("groups: %s", diff)
			}
		})
	}
}
