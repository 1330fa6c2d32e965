package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// AdmitFunc runs validating admission on a TokenRequest (a copy: changes
// are ignored, mutating admission belongs before Create); an error
// denies the request and is returned as is.
type AdmitFunc func(ctx context.Context, tr *authenticationv1.TokenRequest) error

// TokenRequests serves POST .../serviceaccounts/<name>/token.
type TokenRequests struct {
	issuer *Issuer
	getter Getter
}

// NewTokenRequests returns the subresource for an issuer, reading service
// accounts and bound objects through getter.
func NewTokenRequests(issuer *Issuer, getter Getter) (*TokenRequests, error) {
	if issuer == nil || getter == nil {
		return nil, fmt.Errorf("%w: token requests need an issuer and a getter", ErrInvalidConfig)
	}
	return &TokenRequests{issuer: issuer, getter: getter}, nil
}

// TokenResponse is the outcome of a TokenRequest.
type TokenResponse struct {
	// TokenRequest is the response body: the defaulted request with its
	// status filled in.
	TokenRequest *authenticationv1.TokenRequest
	// Warnings go to the client as Warning headers.
	Warnings []string
	// CredentialID goes to the audit event under
	// IssuedCredentialIDAuditAnnotation.
	CredentialID string
}

// Create issues a token for the service account namespace/name, in
// kube-apiserver's order: metadata checks, the service account, defaults,
// static validation, admit (may be nil), the bound object, the
// expiration cap, signing. Errors are *apierrors.StatusError, except
// those of admit and of a getter that already are API statuses.
func (t *TokenRequests) Create(ctx context.Context, namespace, name string, req *authenticationv1.TokenRequest, admit AdmitFunc) (*TokenResponse, error) {
	if req == nil {
		return nil, apierrors.NewBadRequest("a TokenRequest body is required")
	}
	gk := tokenRequestKind.GroupKind()
	if req.Name != "" && req.Name != name {
		return nil, apierrors.NewInvalid(gk, name, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), req.Name, "must match the service account name if specified")})
	}
	if req.Namespace != "" && req.Namespace != namespace {
		return nil, apierrors.NewInvalid(gk, name, field.ErrorList{field.Invalid(field.NewPath("metadata", "namespace"), req.Namespace, "must match the service account namespace if specified")})
	}
	sa, err := t.getter.GetServiceAccount(ctx, namespace, name)
	if err != nil || sa == nil {
		return nil, statusError(err, corev1.SchemeGroupVersion.WithResource("serviceaccounts").GroupResource(), name)
	}
	if req.UID != "" && req.UID != sa.UID {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: gk.Group, Resource: gk.Kind}, name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, sa.UID))
	}

	out := req.DeepCopy()
	SetDefaults(&out.Spec)
	if len(out.Spec.Audiences) == 0 {
		out.Spec.Audiences = t.issuer.APIAudiences()
	}
	out.Name, out.Namespace, out.UID = sa.Name, sa.Namespace, sa.UID
	if out.Namespace == "" {
		out.Namespace = namespace
	}
	now := t.issuer.now()
	out.CreationTimestamp = metav1.NewTime(now)
	out.Status = authenticationv1.TokenRequestStatus{}
	if errs := ValidateTokenRequest(out); len(errs) != 0 {
		return nil, apierrors.NewInvalid(gk, "", errs)
	}
	if admit != nil {
		if err := admit(ctx, out.DeepCopy()); err != nil {
			return nil, err
		}
	}

	r := Request{
		Namespace:      out.Namespace,
		ServiceAccount: Ref{Name: sa.Name, UID: sa.UID},
		Audiences:      out.Spec.Audiences,
	}
	if err := t.bind(ctx, &r, out.Spec.BoundObjectRef); err != nil {
		return nil, err
	}

	var warnings []string
	requested := *out.Spec.ExpirationSeconds
	if c := t.issuer.capped(requested); c != requested {
		warnings = append(warnings, fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", requested, c))
		out.Spec.ExpirationSeconds = ptr.To(c)
	}
	r.ExpirationSeconds = *out.Spec.ExpirationSeconds
	tok, err := t.issuer.issue(r, now)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %w", err))
	}
	out.TypeMeta = metav1.TypeMeta{APIVersion: tokenRequestKind.GroupVersion().String(), Kind: tokenRequestKind.Kind}
	out.Status = authenticationv1.TokenRequestStatus{
		Token:               tok.token,
		ExpirationTimestamp: metav1.NewTime(now.Add(time.Duration(r.ExpirationSeconds) * time.Second)),
	}
	return &TokenResponse{TokenRequest: out, Warnings: warnings, CredentialID: CredentialID(tok.jti)}, nil
}

// bind resolves the bound object reference into r. Like kube-apiserver it
// looks at the group and kind only.
func (t *TokenRequests) bind(ctx context.Context, r *Request, bound *authenticationv1.BoundObjectReference) error {
	if bound == nil {
		return nil
	}
	gvk := schema.FromAPIVersionAndKind(bound.APIVersion, bound.Kind)
	var uid types.UID
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		if bound.Name == "" {
			return nameRequired()
		}
		pod, err := t.getter.GetPod(ctx, r.Namespace, bound.Name)
		if err != nil || pod == nil {
			return statusError(err, corev1.Resource("pods"), bound.Name)
		}
		if pod.Spec.ServiceAccountName != r.ServiceAccount.Name {
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", r.ServiceAccount.Name))
		}
		uid = pod.UID
		r.Pod = &Ref{Name: pod.Name, UID: pod.UID}
		if node := pod.Spec.NodeName; node != "" {
			n, err := t.getter.GetNode(ctx, node)
			switch {
			case err == nil && n != nil:
				r.Node = &Ref{Name: n.Name, UID: n.UID}
			case err == nil || isNotFound(err):
				// The node's name still tells readers of the token where
				// the pod runs.
				r.Node = &Ref{Name: node}
			default:
				return apierrors.NewInternalError(err)
			}
		}
	case gvk.Group == "" && gvk.Kind == "Node":
		if bound.Name == "" {
			return nameRequired()
		}
		node, err := t.getter.GetNode(ctx, bound.Name)
		if err != nil || node == nil {
			return statusError(err, corev1.Resource("nodes"), bound.Name)
		}
		uid = node.UID
		r.Node = &Ref{Name: node.Name, UID: node.UID}
	case gvk.Group == "" && gvk.Kind == "Secret":
		if bound.Name == "" {
			return nameRequired()
		}
		secret, err := t.getter.GetSecret(ctx, r.Namespace, bound.Name)
		if err != nil || secret == nil {
			return statusError(err, corev1.Resource("secrets"), bound.Name)
		}
		uid = secret.UID
		r.Secret = &Ref{Name: secret.Name, UID: secret.UID}
	case gvk.GroupVersion() == schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"} &&
		(gvk.Kind == "ValidatingWebhookConfiguration" || gvk.Kind == "MutatingWebhookConfiguration"):
		// Alpha (APIServerWebhookAuthenticationToken) and off by default.
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s (feature gate %s is disabled)", gvk.String(), "APIServerWebhookAuthenticationToken"))
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	}
	if bound.UID != "" && bound.UID != uid {
		return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, bound.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", bound.UID))
	}
	return nil
}

// nameRequired is what kube-apiserver's store answers for a get with no
// name.
func nameRequired() error { return apierrors.NewBadRequest("Name parameter required.") }

// statusError turns a getter's error into an API status: its own when it
// is one, NotFound for ErrNotFound or a missing object, else internal.
func statusError(err error, gr schema.GroupResource, name string) error {
	var status apierrors.APIStatus
	switch {
	case err == nil || (isNotFound(err) && !errors.As(err, &status)):
		return apierrors.NewNotFound(gr, name)
	case errors.As(err, &status):
		return err
	default:
		return apierrors.NewInternalError(err)
	}
}
