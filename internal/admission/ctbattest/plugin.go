package ctbattest

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/certauthz"
	"github.com/portcullis/portcullis/internal/authz"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "ClusterTrustBundleAttest"

// ErrNoAuthorizer is New's error without an authorizer.
var ErrNoAuthorizer = errors.New(Name + " requires an authorizer")

// Plugin is ClusterTrustBundleAttest.
type Plugin struct {
	az      authz.Authorizer
	enabled bool
}

// New returns the plugin asking az; enabled is the ClusterTrustBundle
// feature gate (off, the plugin admits everything).
func New(az authz.Authorizer, enabled bool) (*Plugin, error) {
	if az == nil {
		return nil, ErrNoAuthorizer
	}
	return &Plugin{az: az, enabled: enabled}, nil
}

var bundles = schema.GroupResource{Group: certificatesv1.GroupName, Resource: "clustertrustbundles"}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if !p.enabled || (a.Operation != admission.Create && a.Operation != admission.Update) || a.Resource.GroupResource() != bundles {
		return nil
	}
	signer, ok := signerName(a.Object)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("expected type ClusterTrustBundle, got: %T", a.OldObject))
	}
	if signer == "" {
		return nil
	}
	if a.Operation == admission.Update && onlyGCFieldsChanged(a.Object, a.OldObject) {
		return nil
	}
	if !certauthz.Allowed(ctx, p.az, a.UserInfo, "attest", signer) {
		return admission.NewForbidden(a, fmt.Errorf("user not permitted to attest for signerName %q", signer))
	}
	return nil
}

func signerName(obj runtime.Object) (string, bool) {
	switch b := obj.(type) {
	case *certificatesv1.ClusterTrustBundle:
		if b != nil {
			return b.Spec.SignerName, true
		}
	case *certificatesv1beta1.ClusterTrustBundle:
		if b != nil {
			return b.Spec.SignerName, true
		}
	case *certificatesv1alpha1.ClusterTrustBundle:
		if b != nil {
			return b.Spec.SignerName, true
		}
	}
	return "", false
}

// onlyGCFieldsChanged reports whether obj equals old once the fields the
// garbage collector and storage migration write (ownerReferences,
// finalizers, selfLink, managedFields) are taken from old.
func onlyGCFieldsChanged(obj, old runtime.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	copied := obj.DeepCopyObject()
	cm, err := meta.Accessor(copied)
	if err != nil {
		return false
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	cm.SetOwnerReferences(om.GetOwnerReferences())
	cm.SetFinalizers(om.GetFinalizers())
	cm.SetSelfLink(om.GetSelfLink())
	cm.SetManagedFields(om.GetManagedFields())
	return equality.Semantic.DeepEqual(copied, old)
}
