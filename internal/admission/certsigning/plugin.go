package certsigning

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/certauthz"
	"github.com/portcullis/portcullis/internal/authz"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "CertificateSigning"

// ErrNoAuthorizer is New's error without an authorizer.
var ErrNoAuthorizer = errors.New(Name + " requires an authorizer")

// Plugin is CertificateSigning.
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
	if a.Operation != admission.Update || a.Subresource != "status" || a.Resource.GroupResource() != csrs {
		return nil
	}
	old, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	// reflect, not Semantic, for the certificate: setting an empty
	// certificate where there was none is a change that needs "sign".
	if reflect.DeepEqual(old.Status.Certificate, csr.Status.Certificate) && equality.Semantic.DeepEqual(old.Status.Conditions, csr.Status.Conditions) {
		return nil
	}
	if !certauthz.Allowed(ctx, p.az, a.UserInfo, "sign", old.Spec.SignerName) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to sign requests with signerName %q", old.Spec.SignerName))
	}
	return nil
}
