package certauthz

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// fakeAuthorizer answers by signer name and records the names asked.
type fakeAuthorizer struct {
	decisions map[string]authorizer.Decision
	errs      map[string]error
	asked     []string
}

func (f *fakeAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	f.asked = append(f.asked, a.GetName())
	return f.decisions[a.GetName()], "", f.errs[a.GetName()]
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name      string
		signer    string
		decisions map[string]authorizer.Decision
		errs      map[string]error
		want      bool
		wantAsked []string
	}{
		{name: "exact", signer: "example.com/foo",
			decisions: map[string]authorizer.Decision{"example.com/foo": authorizer.DecisionAllow},
			want:      true, wantAsked: []string{"example.com/foo"}},
		{name: "wildcard", signer: "example.com/foo",
			decisions: map[string]authorizer.Decision{"example.com/*": authorizer.DecisionAllow},
			want:      true, wantAsked: []string{"example.com/foo", "example.com/*"}},
		{name: "wildcard is the first segment only", signer: "example.com/foo/bar",
			decisions: map[string]authorizer.Decision{"example.com/foo/*": authorizer.DecisionAllow},
			want:      false, wantAsked: []string{"example.com/foo/bar", "example.com/*"}},
		{name: "deny on exact still asks the wildcard", signer: "example.com/foo",
			decisions: map[string]authorizer.Decision{"example.com/foo": authorizer.DecisionDeny, "example.com/*": authorizer.DecisionAllow},
			want:      true, wantAsked: []string{"example.com/foo", "example.com/*"}},
		{name: "error on exact still asks the wildcard", signer: "example.com/foo",
			decisions: map[string]authorizer.Decision{"example.com/*": authorizer.DecisionAllow},
			errs:      map[string]error{"example.com/foo": errors.New("webhook down")},
			want:      true, wantAsked: []string{"example.com/foo", "example.com/*"}},
		{name: "allow with an error still allows", signer: "example.com/foo",
			decisions: map[string]authorizer.Decision{"example.com/foo": authorizer.DecisionAllow},
			errs:      map[string]error{"example.com/foo": errors.New("partial")},
			want:      true, wantAsked: []string{"example.com/foo"}},
		{name: "no slash", signer: "plain",
			decisions: map[string]authorizer.Decision{"plain/*": authorizer.DecisionAllow},
			want:      true, wantAsked: []string{"plain", "plain/*"}},
		{name: "nothing allows", signer: "kubernetes.io/kube-apiserver-client",
			want: false, wantAsked: []string{"kubernetes.io/kube-apiserver-client", "kubernetes.io/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			az := &fakeAuthorizer{decisions: tt.decisions, errs: tt.errs}
			u := &user.DefaultInfo{Name: "alice"}
			if got := Allowed(context.Background(), az, u, "approve", tt.signer); got != tt.want {
				t.Errorf("Allowed = %v, want %v", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantAsked, az.asked); diff != "" {
				t.Errorf("names asked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAttributes(t *testing.T) {
	u := &user.DefaultInfo{Name: "alice"}
	want := authorizer.AttributesRecord{User: u, Verb: "sign", Name: "example.com/foo",
		APIGroup: "certificates.k8s.io", APIVersion: "*", Resource: "signers", ResourceRequest: true}
	if diff := cmp.Diff(want, Attributes(u, "sign", "example.com/foo")); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
}
