package certsigning

import (
	"context"
	"errors"
	"testing"
	"time"

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

// signerAuthorizer allows the verb listed per signer name and counts calls.
type signerAuthorizer struct {
	allow map[string]string
	asked int
}

func (s *signerAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	s.asked++
	if v, ok := s.allow[a.GetName()]; ok && v == a.GetVerb() && a.GetResource() == "signers" && a.GetAPIGroup() == "certificates.k8s.io" {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

var t0 = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

type status struct {
	signer     string
	cert       []byte
	conditions []certificatesv1.CertificateSigningRequestCondition
}

func (s status) csr() *certificatesv1.CertificateSigningRequest {
	return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr-1"},
		Spec:   certificatesv1.CertificateSigningRequestSpec{SignerName: s.signer},
		Status: certificatesv1.CertificateSigningRequestStatus{Certificate: s.cert, Conditions: s.conditions}}
}

func TestValidate(t *testing.T) {
	approved := []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, LastUpdateTime: t0}}
	failed := append(approved[:1:1], certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue})
	const refused = `certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: user not permitted to sign requests with signerName "example.com/foo"`
	tests := []struct {
		name        string
		subresource string
		old, obj    runtime.Object
		allow       map[string]string
		wantErr     string
		wantAsked   int
	}{
		{name: "certificate issued by a signer", subresource: "status",
			old: status{signer: "example.com/foo", conditions: approved}.csr(), obj: status{signer: "example.com/foo", conditions: approved, cert: []byte("PEM")}.csr(),
			allow: map[string]string{"example.com/foo": "sign"}, wantAsked: 1},
		{name: "certificate issued on the domain wildcard", subresource: "status",
			old: status{signer: "example.com/foo"}.csr(), obj: status{signer: "example.com/foo", cert: []byte("PEM")}.csr(),
			allow: map[string]string{"example.com/*": "sign"}, wantAsked: 2},
		{name: "certificate issued by an approver", subresource: "status",
			old: status{signer: "example.com/foo"}.csr(), obj: status{signer: "example.com/foo", cert: []byte("PEM")}.csr(),
			allow: map[string]string{"example.com/foo": "approve"}, wantErr: refused, wantAsked: 2},
		{name: "empty certificate where there was none", subresource: "status",
			old: status{signer: "example.com/foo"}.csr(), obj: status{signer: "example.com/foo", cert: []byte{}}.csr(),
			wantErr: refused, wantAsked: 2},
		{name: "condition added", subresource: "status",
			old: status{signer: "example.com/foo", conditions: approved}.csr(), obj: status{signer: "example.com/foo", conditions: failed}.csr(),
			wantErr: refused, wantAsked: 2},
		{name: "judged on the old signer", subresource: "status",
			old: status{signer: "example.com/foo"}.csr(), obj: status{signer: "other.io/x", cert: []byte("PEM")}.csr(),
			allow: map[string]string{"other.io/x": "sign"}, wantErr: refused, wantAsked: 2},
		{name: "nothing changed in certificate or conditions", subresource: "status",
			old: status{signer: "example.com/foo", cert: []byte("PEM"), conditions: approved}.csr(), obj: status{signer: "example.com/foo", cert: []byte("PEM"), conditions: approved}.csr()},
		{name: "main resource not checked",
			old: status{signer: "example.com/foo"}.csr(), obj: status{signer: "example.com/foo", cert: []byte("PEM")}.csr()},
		{name: "approval not checked", subresource: "approval",
			old: status{signer: "example.com/foo"}.csr(), obj: status{signer: "example.com/foo", conditions: approved}.csr()},
		{name: "new object not a csr", subresource: "status", old: status{signer: "example.com/foo"}.csr(), obj: &corev1.Pod{},
			wantErr: `certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: expected type CertificateSigningRequest, got: *v1.Pod`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			az := &signerAuthorizer{allow: tt.allow}
			p, err := New(az)
			if err != nil {
				t.Fatal(err)
			}
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"},
				Subresource: tt.subresource, Operation: admission.Update, Name: "csr-1", UserInfo: &user.DefaultInfo{Name: "signer"}, Object: tt.obj, OldObject: tt.old}
			err = p.Validate(context.Background(), a)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err)):
				t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
			}
			if az.asked != tt.wantAsked {
				t.Errorf("authorizer asked %d times, want %d", az.asked, tt.wantAsked)
			}
		})
	}
}

func TestNewWithoutAuthorizer(t *testing.T) {
	if _, err := New(nil); !errors.Is(err, ErrNoAuthorizer) || err.Error() != "CertificateSigning requires an authorizer" {
		t.Fatalf("New(nil) = %v", err)
	}
}
