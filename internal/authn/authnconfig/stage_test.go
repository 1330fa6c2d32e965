package authnconfig

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

func TestStageOrder(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("file-token,alice,uid-1,\"devs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sa := authn.TokenFunc(func(_ context.Context, token string) (user.Info, bool, error) {
		if token == "sa-token" {
			return &user.DefaultInfo{Name: "system:serviceaccount:ns:sa"}, true, nil
		}
		return nil, false, nil
	})
	for _, tc := range []struct {
		name      string
		anonymous bool
		header    string
		want      string
		ok        bool
	}{
		{name: "token file", header: "Bearer file-token", want: "alice", ok: true},
		{name: "service account", header: "Bearer sa-token", want: "system:serviceaccount:ns:sa", ok: true},
		{name: "anonymous", anonymous: true, want: "system:anonymous", ok: true},
		{name: "anonymous off", anonymous: false, ok: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewStage(Flags{TokenAuthFile: tokens, AnonymousAuth: tc.anonymous}, authn.Union{}, sa, nil, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/api", nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			u, ok, err := s.Request.AuthenticateRequest(r)
			if ok != tc.ok || err != nil || (ok && u.GetName() != tc.want) {
				t.Fatalf("authenticated %v %v %v, want %q %v", u, ok, err, tc.want, tc.ok)
			}
			if tc.header != "" {
				token := tc.header[len("Bearer "):]
				if u, ok, err := s.Tokens.AuthenticateToken(context.Background(), token); !ok || err != nil || u.GetName() != tc.want {
					t.Errorf("token review of %q: %v %v %v", token, u, ok, err)
				}
			}
			if err := s.Health(); err != nil {
				t.Errorf("health with no JWT issuer: %v", err)
			}
		})
	}
}
