package ctbattest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// signerAuthorizer allows attest on the listed names and records them.
type signerAuthorizer struct {
	allow map[string]bool
	asked []string
}

func (s *signerAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	s.asked = append(s.asked, a.GetVerb()+" "+a.GetAPIGroup()+"/"+a.GetResource()+" "+a.GetName())
	if s.allow[a.GetName()] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func bundle(signer string, mutate ...func(*certificatesv1.ClusterTrustBundle)) *certificatesv1.ClusterTrustBundle {
	b := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:foo:abc", ResourceVersion: "7"},
		Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: signer, TrustBundle: "PEM"}}
	for _, m := range mutate {
		m(b)
	}
	return b
}

func TestValidate(t *testing.T) {
	const refused = `clustertrustbundles.certificates.k8s.io "example.com:foo:abc" is forbidden: user not permitted to attest for signerName "example.com/foo"`
	v1 := schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "clustertrustbundles"}
	tests := []struct {
		name      string
		disabled  bool
		op        admission.Operation
		resource  schema.GroupVersionResource
		obj, old  runtime.Object
		allow     map[string]bool
		wantErr   string
		wantAsked []string
	}{
		{name: "create with attest on the signer", op: admission.Create, obj: bundle("example.com/foo"),
			allow: map[string]bool{"example.com/foo": true}, wantAsked: []string{"attest certificates.k8s.io/signers example.com/foo"}},
		{name: "create with attest on the domain", op: admission.Create, obj: bundle("example.com/foo"),
			allow:     map[string]bool{"example.com/*": true},
			wantAsked: []string{"attest certificates.k8s.io/signers example.com/foo", "attest certificates.k8s.io/signers example.com/*"}},
		{name: "create without attest", op: admission.Create, obj: bundle("example.com/foo"), wantErr: refused,
			wantAsked: []string{"attest certificates.k8s.io/signers example.com/foo", "attest certificates.k8s.io/signers example.com/*"}},
		{name: "v1beta1 create without attest", op: admission.Create, resource: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1beta1", Resource: "clustertrustbundles"},
			obj:       &certificatesv1beta1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:foo:abc"}, Spec: certificatesv1beta1.ClusterTrustBundleSpec{SignerName: "example.com/foo"}},
			wantErr:   refused,
			wantAsked: []string{"attest certificates.k8s.io/signers example.com/foo", "attest certificates.k8s.io/signers example.com/*"}},
		{name: "no signer needs nothing", op: admission.Create, obj: bundle("")},
		{name: "update of the bundle needs attest", op: admission.Update, obj: bundle("example.com/foo", func(b *certificatesv1.ClusterTrustBundle) { b.Spec.TrustBundle = "NEW" }),
			old: bundle("example.com/foo"), wantErr: refused,
			wantAsked: []string{"attest certificates.k8s.io/signers example.com/foo", "attest certificates.k8s.io/signers example.com/*"}},
		{name: "label change needs attest", op: admission.Update, obj: bundle("example.com/foo", func(b *certificatesv1.ClusterTrustBundle) { b.Labels = map[string]string{"a": "b"} }),
			old: bundle("example.com/foo"), wantErr: refused,
			wantAsked: []string{"attest certificates.k8s.io/signers example.com/foo", "attest certificates.k8s.io/signers example.com/*"}},
		{name: "gc fields only", op: admission.Update, obj: bundle("example.com/foo", func(b *certificatesv1.ClusterTrustBundle) {
			b.Finalizers = []string{"x/y"}
			b.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "u"}}
			b.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}}
		}), old: bundle("example.com/foo")},
		{name: "unchanged update (storage migration)", op: admission.Update, obj: bundle("example.com/foo"), old: bundle("example.com/foo")},
		{name: "gate off", disabled: true, op: admission.Create, obj: bundle("example.com/foo")},
		{name: "delete not checked", op: admission.Delete, old: bundle("example.com/foo")},
		{name: "wrong type names the old object's type", op: admission.Create, obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "example.com:foo:abc"}},
			wantErr: `clustertrustbundles.certificates.k8s.io "example.com:foo:abc" is forbidden: expected type ClusterTrustBundle, got: <nil>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			az := &signerAuthorizer{allow: tt.allow}
			p, err := New(az, !tt.disabled)
			if err != nil {
				t.Fatal(err)
			}
			res := v1
			if tt.resource.Resource != "" {
				res = tt.resource
			}
			a := &admission.Attributes{Resource: res, Operation: tt.op, Name: "example.com:foo:abc", UserInfo: &user.DefaultInfo{Name: "alice"}, Object: tt.obj, OldObject: tt.old}
			err = p.Validate(context.Background(), a)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err)):
				t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantAsked, az.asked); diff != "" {
				t.Errorf("authorizations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewWithoutAuthorizer(t *testing.T) {
	if _, err := New(nil, true); !errors.Is(err, ErrNoAuthorizer) || err.Error() != "ClusterTrustBundleAttest requires an authorizer" {
		t.Fatalf("New(nil) = %v", err)
	}
}
