package anonymous

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/authn"
)

func TestResolve(t *testing.T) {
	docExample := &apiserverv1.AnonymousAuthConfig{Enabled: true, Conditions: []apiserverv1.AnonymousAuthCondition{
		{Path: "/livez"}, {Path: "/readyz"}, {Path: "/healthz"},
	}}
	tests := []struct {
		name      string
		flag, set bool
		file      *apiserverv1.AnonymousAuthConfig
		wantErr   error
		allowed   []string
		denied    []string
	}{
		{name: "default: the flag's default true", flag: true, allowed: []string{"/", "/api/v1/pods", "/healthz"}},
		{name: "--anonymous-auth=false", flag: false, set: true, denied: []string{"/", "/healthz"}},
		{name: "--anonymous-auth=true", flag: true, set: true, allowed: []string{"/version"}},
		{name: "doc: file with conditions", flag: true, file: docExample,
			allowed: []string{"/livez", "/readyz", "/healthz"}, denied: []string{"/api", "/healthz/etcd", "/livez/", "/version"}},
		{name: "file enabled without conditions", flag: true, file: &apiserverv1.AnonymousAuthConfig{Enabled: true},
			allowed: []string{"/anything"}},
		{name: "file disabled", flag: true, file: &apiserverv1.AnonymousAuthConfig{Enabled: false}, denied: []string{"/healthz"}},
		{name: "file and flag conflict", flag: true, set: true, file: docExample, wantErr: ErrFlagConflict},
		{name: "file and flag=false conflict too", flag: false, set: true, file: &apiserverv1.AnonymousAuthConfig{}, wantErr: ErrFlagConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Resolve(tt.flag, tt.set, tt.file)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			for _, p := range tt.allowed {
				u, ok, err := r.AuthenticateRequest(httptest.NewRequest(http.MethodGet, p, nil))
				if !ok || err != nil {
					t.Fatalf("%s not allowed", p)
				}
				want := &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}
				if diff := cmp.Diff(want, u); diff != "" {
					t.Fatal(diff)
				}
			}
			for _, p := range tt.denied {
				if _, ok, _ := r.AuthenticateRequest(httptest.NewRequest(http.MethodGet, p, nil)); ok {
					t.Fatalf("%s allowed", p)
				}
			}
		})
	}
}

func TestConflictMessage(t *testing.T) {
	want := "anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file"
	if ErrFlagConflict.Error() != want {
		t.Fatalf("got %q", ErrFlagConflict.Error())
	}
}

func TestWithFallback(t *testing.T) {
	bad := errors.New("invalid bearer token")
	chain := authn.Func(func(r *http.Request) (user.Info, bool, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			return &user.DefaultInfo{Name: "alice"}, true, nil
		case "Bearer bad":
			return nil, false, bad
		}
		return nil, false, nil
	})
	a := WithFallback(chain, FromConfig(&apiserverv1.AnonymousAuthConfig{Enabled: true,
		Conditions: []apiserverv1.AnonymousAuthCondition{{Path: "/healthz"}}}))
	tests := []struct {
		path, auth string
		wantUser   string
		wantErr    error
	}{
		{"/healthz", "", "system:anonymous", nil},
		{"/api", "", "", nil},
		{"/healthz", "Bearer good", "alice", nil},
		{"/healthz", "Bearer bad", "", bad}, // a bad token is a 401, not anonymous
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, tt.path, nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		u, ok, err := a.AuthenticateRequest(req)
		if !errors.Is(err, tt.wantErr) || ok != (tt.wantUser != "") || (ok && u.GetName() != tt.wantUser) {
			t.Errorf("%s %q: got %v %v %v", tt.path, tt.auth, u, ok, err)
		}
	}
	if WithFallback(chain, Disabled()) == nil {
		t.Fatal("disabled fallback lost the chain")
	}
	if got := FromConfig(&apiserverv1.AnonymousAuthConfig{Enabled: true, Conditions: []apiserverv1.AnonymousAuthCondition{{Path: "/b"}, {Path: "/a"}}}).Paths(); !cmp.Equal(got, []string{"/a", "/b"}) {
		t.Fatal(got)
	}
}
