package tokenrequest

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/request"
)

// Handler answers token requests.
type Handler struct {
	requests *serviceaccount.TokenRequests
	chain    *admission.Chain
}

// New returns the handler; both arguments are required.
func New(requests *serviceaccount.TokenRequests, chain *admission.Chain) (*Handler, error) {
	if requests == nil || chain == nil {
		return nil, fmt.Errorf("tokenrequest: need the token issuer and the admission chain")
	}
	return &Handler{requests: requests, chain: chain}, nil
}

var (
	kind     = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")
	resource = corev1.SchemeGroupVersion.WithResource("serviceaccounts")
)

// Create answers a TokenRequest for the service account ns/name; its
// signature is the REST layer's ConnectorFunc.
func (h *Handler) Create(ctx context.Context, ns, name string, body runtime.Object, options *metav1.CreateOptions) (runtime.Object, error) {
	tr, ok := body.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", body))
	}
	st := request.StateFrom(ctx)
	resp, err := h.requests.Create(ctx, ns, name, tr, func(ctx context.Context, tr *authenticationv1.TokenRequest) error {
		a := &admission.Attributes{
			Kind: kind, RequestKind: kind, Resource: resource, RequestResource: resource,
			Subresource: "token", RequestSubResource: "token", Name: name, Namespace: ns, Operation: admission.Create, Object: tr,
			Options: options,
		}
		if options != nil {
			a.DryRun = len(options.DryRun) > 0
		}
		if st != nil {
			a.UserInfo = st.User
		}
		if err := h.chain.Admit(ctx, a); err != nil {
			return err
		}
		return h.chain.Validate(ctx, a)
	})
	if err != nil {
		return nil, err
	}
	if st != nil {
		for _, w := range resp.Warnings {
			st.AddWarning(w)
		}
		if resp.CredentialID != "" {
			st.AddAnnotation(serviceaccount.IssuedCredentialIDAuditAnnotation, resp.CredentialID)
		}
	}
	return resp.TokenRequest, nil
}
