package certsubjectrestriction

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func request(t *testing.T, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice", Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func csr(signer string, req []byte) *certificatesv1.CertificateSigningRequest {
	return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr-1"},
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: signer, Request: req}}
}

func TestValidate(t *testing.T) {
	const client = certificatesv1.KubeAPIServerClientSignerName
	const prefix = `certificatesigningrequests.certificates.k8s.io "csr-1" is forbidden: `
	masters := request(t, "dev", "system:masters")
	// The DER error is the standard library's, whatever its words.
	_, derErr := x509.ParseCertificateRequest([]byte{1, 2})
	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		obj         runtime.Object
		wantErr     string
	}{
		{name: "client cert for an ordinary group", op: admission.Create, obj: csr(client, request(t, "dev"))},
		{name: "client cert for system:masters", op: admission.Create, obj: csr(client, masters),
			wantErr: prefix + "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"},
		{name: "organization must match exactly", op: admission.Create, obj: csr(client, request(t, "System:Masters", "system:masters-ish"))},
		{name: "other signer may ask for system:masters", op: admission.Create, obj: csr("example.com/foo", masters)},
		{name: "kubelet client signer is not restricted here", op: admission.Create, obj: csr(certificatesv1.KubeAPIServerClientKubeletSignerName, masters)},
		{name: "not PEM", op: admission.Create, obj: csr(client, []byte("garbage")),
			wantErr: prefix + "failed to parse CSR: PEM block type must be CERTIFICATE REQUEST"},
		{name: "wrong PEM type", op: admission.Create, obj: csr(client, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})),
			wantErr: prefix + "failed to parse CSR: PEM block type must be CERTIFICATE REQUEST"},
		{name: "bad DER", op: admission.Create, obj: csr(client, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte{1, 2}})),
			wantErr: prefix + "failed to parse CSR: " + derErr.Error()},
		{name: "update not checked", op: admission.Update, obj: csr(client, masters)},
		{name: "status not checked", op: admission.Create, subresource: "status", obj: csr(client, masters)},
		{name: "not a csr", op: admission.Create, obj: &corev1.Secret{},
			wantErr: prefix + "expected type CertificateSigningRequest, got: *v1.Secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"},
				Subresource: tt.subresource, Operation: tt.op, Name: "csr-1", Object: tt.obj}
			err := New().Validate(context.Background(), a)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err)):
				t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
			}
		})
	}
}
