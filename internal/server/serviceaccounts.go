package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/rest"
)

// objectGetter reads typed objects through the REST handler, which is
// built after the authenticators that need it.
type objectGetter struct {
	rest **rest.Handler
}

func (g objectGetter) get(ctx context.Context, res, ns, name string) (runtime.Object, error) {
	return (*g.rest).Get(ctx, schema.GroupVersionResource{Version: "v1", Resource: res}, ns, name)
}

func (g objectGetter) GetServiceAccount(ctx context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	obj, err := g.get(ctx, "serviceaccounts", ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.ServiceAccount), nil
}

func (g objectGetter) GetPod(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	obj, err := g.get(ctx, "pods", ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

func (g objectGetter) GetSecret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	obj, err := g.get(ctx, "secrets", ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Secret), nil
}

func (g objectGetter) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	obj, err := g.get(ctx, "nodes", "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Node), nil
}

func (g objectGetter) GetPersistentVolumeClaim(ctx context.Context, ns, name string) (*corev1.PersistentVolumeClaim, error) {
	obj, err := g.get(ctx, "persistentvolumeclaims", ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.PersistentVolumeClaim), nil
}

func (g objectGetter) GetPersistentVolume(ctx context.Context, name string) (*corev1.PersistentVolume, error) {
	obj, err := g.get(ctx, "persistentvolumes", "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.PersistentVolume), nil
}

func (g objectGetter) GetCSIDriver(ctx context.Context, name string) (*storagev1.CSIDriver, error) {
	obj, err := (*g.rest).Get(ctx, schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"}, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*storagev1.CSIDriver), nil
}

// serviceAccounts holds the service account token machinery.
type serviceAccounts struct {
	keys          *serviceaccount.Keys
	cfg           serviceaccount.Config
	issuer        *serviceaccount.Issuer
	authenticator *serviceaccount.Authenticator
	requests      *serviceaccount.TokenRequests
	// admission runs the admission chain on token requests.
	admission *admission.Chain
}

// loadServiceAccountKeys reads (or on a first start generates) the
// service account keys the flags name.
func loadServiceAccountKeys(cfg Config) (*serviceaccount.Keys, error) {
	return serviceaccount.LoadOrGenerateKeys(cfg.DataDir, cfg.ServiceAccountSigningKeyFile, cfg.ServiceAccountKeyFiles)
}

// newServiceAccounts builds the token machinery; keys returns the
// service account keys, which Run may still be generating.
func newServiceAccounts(cfg Config, keys func() (*serviceaccount.Keys, error), getter serviceaccount.Getter) (*serviceAccounts, error) {
	if keys == nil {
		keys = func() (*serviceaccount.Keys, error) { return loadServiceAccountKeys(cfg) }
	}
	k, err := keys()
	if err != nil {
		return nil, fmt.Errorf("service account keys: %w", err)
	}
	sac := serviceaccount.Config{
		Issuers:          cfg.ServiceAccountIssuers,
		APIAudiences:     cfg.APIAudiences,
		MaxExpiration:    cfg.ServiceAccountMaxTokenExpiration,
		ExtendExpiration: cfg.ServiceAccountExtendTokenExpiration,
	}
	if err := sac.Validate(); err != nil {
		return nil, err
	}
	issuer, err := serviceaccount.NewIssuer(k, sac)
	if err != nil {
		return nil, err
	}
	a, err := serviceaccount.NewAuthenticator(k, sac, getter)
	if err != nil {
		return nil, err
	}
	reqs, err := serviceaccount.NewTokenRequests(issuer, getter)
	if err != nil {
		return nil, err
	}
	return &serviceAccounts{keys: k, cfg: sac, issuer: issuer, authenticator: a, requests: reqs}, nil
}

// tokenRequest answers POST .../serviceaccounts/<name>/token.
func (s *serviceAccounts) tokenRequest(ctx context.Context, ns, name string, body runtime.Object, _ bool) (runtime.Object, error) {
	tr, ok := body.(*authenticationv1.TokenRequest)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", body))
	}
	resp, err := s.requests.Create(ctx, ns, name, tr, func(ctx context.Context, tr *authenticationv1.TokenRequest) error {
		a := &admission.Attributes{
			Kind: authenticationv1.SchemeGroupVersion.WithKind("TokenRequest"), RequestKind: authenticationv1.SchemeGroupVersion.WithKind("TokenRequest"),
			Resource: corev1.SchemeGroupVersion.WithResource("serviceaccounts"), RequestResource: corev1.SchemeGroupVersion.WithResource("serviceaccounts"),
			Subresource: "token", RequestSubResource: "token", Name: name, Namespace: ns, Operation: admission.Create, Object: tr,
		}
		if st := request.StateFrom(ctx); st != nil {
			a.UserInfo = st.User
		}
		if err := s.admission.Admit(ctx, a); err != nil {
			return err
		}
		return s.admission.Validate(ctx, a)
	})
	if err != nil {
		return nil, err
	}
	if st := request.StateFrom(ctx); st != nil {
		for _, w := range resp.Warnings {
			st.AddWarning(w)
		}
		if resp.CredentialID != "" {
			st.AddAnnotation(serviceaccount.IssuedCredentialIDAuditAnnotation, resp.CredentialID)
		}
	}
	return resp.TokenRequest, nil
}

// serveIssuerDiscovery serves the service account issuer's OpenID
// discovery document and key set, as kube-apiserver does.
func (s *serviceAccounts) serveIssuerDiscovery(w http.ResponseWriter, r *http.Request) bool {
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		iss := s.cfg.Issuers[0]
		doc := map[string]any{
			"issuer":                                iss,
			"jwks_uri":                              strings.TrimSuffix(iss, "/") + "/openid/v1/jwks",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		}
		data, _ := json.Marshal(doc)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
		return true
	case "/openid/v1/jwks":
		data, err := s.keys.JWKS()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return true
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(data)
		return true
	}
	return false
}
