package certapproval

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// signerAuthorizer allows the verbs listed per signer name and records
// what it was asked.
type signerAuthorizer struct {
	allow map[string]string // signer name -> verb
	asked []authorizer.Attributes
}

func (s *signerAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	s.asked = append(s.asked, a)
	if v, ok := s.allow[a.GetName()]; ok && v == a.GetVerb() && a.GetResource() == "signers" && a.GetAPIGroup() == "certificates.k8s.io" {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func csr(signer string) *certificatesv1.CertificateSigningRequest {
	return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr-1"},
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: signer}}
}

func TestValidate(t *testing.T) {
	csrRes := schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}
	tests := []struct {
		name        string
		op          admission.Operation
		resource    schema.GroupVersionResource
		subresource string
		old, obj    runtime.Object
		allow       map[string]string
		wantErr     string
		wantAsked   int
	}{
		{name: "approve allowed on the signer", op: admission.Update, subresource: "approval",
			old: csr("example.com/foo"), obj: csr("example.com/foo"), allow: map[string]string{"example.com/foo": "approve"}, wantAsked: 1},
		{name: "approve allowed on the domain", op: admission.Update, subresource: "approval",
			old: csr("example.com/foo"), obj: csr("example.com/foo"), allow: map[string]string{"example.com/*": "approve"}, wantAsked: 2},
		{name: "sign is not approve", op: admission.Update, subresource: "approval",
			old: csr("example.com/foo"), obj: csr("example.com/foo"), allow: map[string]string{"example.com/foo": "sign"},
			wantErr:   `certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: user not permitted to approve requests with signerName "example.com/foo"`,
			wantAsked: 2},
		{name: "judged on the old signer", op: admission.Update, subresource: "approval",
			old: csr("example.com/foo"), obj: csr("other.io/bar"), allow: map[string]string{"other.io/bar": "approve"},
			wantErr:   `certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: user not permitted to approve requests with signerName "example.com/foo"`,
			wantAsked: 2},
		{name: "old object not a csr", op: admission.Update, subresource: "approval",
			old: &corev1.ConfigMap{}, obj: csr("example.com/foo"),
			wantErr: `certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: expected type CertificateSigningRequest, got: *v1.ConfigMap`},
		{name: "status is not approval", op: admission.Update, subresource: "status", old: csr("example.com/foo"), obj: csr("example.com/foo")},
		{name: "main resource not checked", op: admission.Update, old: csr("example.com/foo"), obj: csr("example.com/foo")},
		{name: "create not checked", op: admission.Create, subresource: "approval", obj: csr("example.com/foo")},
		{name: "other group not checked", op: admission.Update, subresource: "approval",
			resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "certificatesigningrequests"},
			old:      csr("example.com/foo"), obj: csr("example.com/foo")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			az := &signerAuthorizer{allow: tt.allow}
			p, err := New(az)
			if err != nil {
				t.Fatal(err)
			}
			res := csrRes
			if tt.resource.Resource != "" {
				res = tt.resource
			}
			u := &user.DefaultInfo{Name: "alice", Groups: []string{"approvers"}}
			a := &admission.Attributes{Resource: res, Subresource: tt.subresource, Operation: tt.op, Name: "csr-1", UserInfo: u, Object: tt.obj, OldObject: tt.old}
			err = p.Validate(context.Background(), a)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err)):
				t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
			}
			if len(az.asked) != tt.wantAsked {
				t.Fatalf("authorizer asked %d times, want %d", len(az.asked), tt.wantAsked)
			}
			if tt.wantAsked > 0 {
				want := authorizer.AttributesRecord{User: u, Verb: "approve", Name: tt.old.(*certificatesv1.CertificateSigningRequest).Spec.SignerName,
					APIGroup: "certificates.k8s.io", APIVersion: "*", Resource: "signers", ResourceRequest: true}
				if diff := cmp.Diff(want, az.asked[0]); diff != "" {
					t.Errorf("first authorization (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestNewWithoutAuthorizer(t *testing.T) {
	if _, err := New(nil); !errors.Is(err, ErrNoAuthorizer) || err.Error() != "CertificateApproval requires an authorizer" {
		t.Fatalf("New(nil) = %v", err)
	}
}
