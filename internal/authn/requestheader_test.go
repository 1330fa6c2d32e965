package authn

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/pki"
)

func TestRequestHeader(t *testing.T) {
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
	a := NewRequestHeader(RequestHeaderConfig{ClientCA: pool, AllowedNames: []string{"front-proxy"},
		UsernameHeaders: []string{"X-Remote-User", "X-User"}, UIDHeaders: []string{"X-Remote-Uid"},
		GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-", "X-Extra-"}})

	proxy, _, _ := pki.IssueClient(files, "front-proxy", nil)
	notAllowed, _, _ := pki.IssueClient(files, "someone", nil)
	foreign, _, _ := pki.IssueClient(other, "front-proxy", nil)
	tests := []struct {
		name    string
		cert    []byte
		headers http.Header
		want    *user.DefaultInfo
		wantErr bool
		// left are the headers the request keeps.
		left http.Header
	}{{
		name:    "no certificate",
		headers: http.Header{"X-Remote-User": {"alice"}},
		left:    http.Header{"X-Remote-User": {"alice"}},
	}, {
		name: "proxy names a user",
		cert: proxy,
		headers: http.Header{"X-Remote-User": {"alice"}, "X-Remote-Uid": {"u-1"}, "X-Remote-Group": {"g1", "g2"},
			"X-Remote-Extra-Scopes": {"a"}, "X-Extra-Scopes": {"b"}, "X-Remote-Extra-Example.com%2fteam": {"c"}, "Accept": {"*/*"}},
		want: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"g1", "g2"},
			Extra: map[string][]string{"scopes": {"a", "b"}, "example.com/team": {"c"}}},
		left: http.Header{"Accept": {"*/*"}},
	}, {
		name:    "second username header",
		cert:    proxy,
		headers: http.Header{"X-User": {"bob"}},
		want:    &user.DefaultInfo{Name: "bob", Groups: []string{}, Extra: map[string][]string{}},
		left:    http.Header{},
	}, {
		name:    "proxy without a user header is not recognised",
		cert:    proxy,
		headers: http.Header{"X-Remote-Group": {"g1"}},
		left:    http.Header{"X-Remote-Group": {"g1"}},
	}, {
		name:    "common name not allowed",
		cert:    notAllowed,
		headers: http.Header{"X-Remote-User": {"alice"}},
		wantErr: true,
		left:    http.Header{"X-Remote-User": {"alice"}},
	}, {
		name:    "another CA",
		cert:    foreign,
		headers: http.Header{"X-Remote-User": {"alice"}},
		wantErr: true,
		left:    http.Header{"X-Remote-User": {"alice"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api", nil)
			r.Header = tt.headers
			if tt.cert != nil {
				r.TLS = certRequest(t, tt.cert)
			}
			u, ok, err := a.AuthenticateRequest(r)
			if (err != nil) != tt.wantErr || ok != (tt.want != nil) {
				t.Fatalf("ok=%v err=%v, want ok=%v err=%v", ok, err, tt.want != nil, tt.wantErr)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, u); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.left, r.Header); diff != "" {
				t.Errorf("headers left (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestHeaderValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  RequestHeaderConfig
		gate bool
		want string
	}{
		{name: "fine", cfg: RequestHeaderConfig{UsernameHeaders: []string{"X-Remote-User"}, UIDHeaders: []string{"x-remote-uid"}}, gate: true},
		{name: "empty value", cfg: RequestHeaderConfig{GroupHeaders: []string{"X-Remote-Group", " "}}, gate: true,
			want: `empty value in "requestheader-group-headers"`},
		{name: "uid without the gate", cfg: RequestHeaderConfig{UIDHeaders: []string{"X-Remote-Uid"}},
			want: `--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled`},
		{name: "uid without the standard header", cfg: RequestHeaderConfig{UIDHeaders: []string{"X-Id"}}, gate: true,
			want: "--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate(tt.gate)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
