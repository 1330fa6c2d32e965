package certsubjectrestriction

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "CertificateSubjectRestriction"

// ErrNotCSR is the parse error of a request that is not a PEM certificate
// request, in kube-apiserver's words.
var ErrNotCSR = errors.New("PEM block type must be CERTIFICATE REQUEST")

// ErrMasters refuses a client certificate for system:masters.
var ErrMasters = fmt.Errorf("use of %s signer with %s group is not allowed", certificatesv1.KubeAPIServerClientSignerName, user.SystemPrivilegedGroup)

// Plugin is CertificateSubjectRestriction.
type Plugin struct{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

var csrs = schema.GroupResource{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}

// Validate implements admission.Validator.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.GroupResource() != csrs {
		return nil
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	req, err := parse(csr.Spec.Request)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("failed to parse CSR: %w", err))
	}
	if slices.Contains(req.Subject.Organization, user.SystemPrivilegedGroup) {
		return admission.NewForbidden(a, ErrMasters)
	}
	return nil
}

// parse decodes the first PEM block, which must be a certificate request.
func parse(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, ErrNotCSR
	}
	return x509.ParseCertificateRequest(block.Bytes)
}
