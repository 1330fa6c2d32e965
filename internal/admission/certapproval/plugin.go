package certapproval

import (
	"context"
	"errors"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/certauthz"
	"github.com/portcullis/portcullis/internal/authz"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "CertificateApproval"

// ErrNoAuthorizer is New's error without an authorizer.
var ErrNoAuthorizer = errors.New(Name + " requires an authorizer")

// Plugin is CertificateApproval.
type Plugin struct {
	az authz.Authorizer
}

// New returns the plugin asking az.
func New(az authz.Authorizer) (*Plugin, error) {
	if az == nil {
		return nil, ErrNoAuthorizer
	}
	return &Plugin{az: az}, nil
}

var csrs = schema.GroupResource{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests"}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || a.Subresource != "approval" || a.Resource.GroupResource() != csrs {
		return nil
	}
	csr, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	if !certauthz.Allowed(ctx, p.az, a.UserInfo, "approve", csr.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to approve requests with signerName %q", csr.Spec.SignerName))
	}
	return nil
}
