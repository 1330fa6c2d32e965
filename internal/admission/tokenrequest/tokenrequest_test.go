package tokenrequest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/authn/serviceaccount"
	"github.com/portcullis/portcullis/internal/controllers/controllertest"
	"github.com/portcullis/portcullis/internal/request"
)

func TestCreate(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	if _, err := env.API.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.API.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Namespace: "ns"}}, "test"); err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := serviceaccount.NewKeys(key)
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := serviceaccount.NewIssuer(keys, serviceaccount.Config{Issuers: []string{"https://issuer.example"}})
	if err != nil {
		t.Fatal(err)
	}
	requests, err := serviceaccount.NewTokenRequests(issuer, env.Objects)
	if err != nil {
		t.Fatal(err)
	}
	var seen []*admission.Attributes
	chain := &admission.Chain{Validators: []admission.Validator{admission.ValidatorFunc(func(_ context.Context, a *admission.Attributes) error {
		seen = append(seen, a)
		if a.UserInfo.GetName() == "mallory" {
			return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, nil)
		}
		return nil
	})}}
	h, err := New(requests, chain)
	if err != nil {
		t.Fatal(err)
	}

	st := &request.State{User: &user.DefaultInfo{Name: "alice"}}
	out, err := h.Create(request.WithState(ctx, st), "ns", "sa", &authenticationv1.TokenRequest{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr := out.(*authenticationv1.TokenRequest); tr.Status.Token == "" {
		t.Errorf("no token issued: %+v", tr)
	}
	if len(seen) != 1 {
		t.Fatalf("admission saw %d requests", len(seen))
	}
	a := seen[0]
	wantKind := schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"}
	if a.Kind != wantKind || a.Resource.Resource != "serviceaccounts" || a.Subresource != "token" || a.Operation != admission.Create ||
		a.Namespace != "ns" || a.Name != "sa" || a.UserInfo.GetName() != "alice" {
		t.Errorf("admission attributes %+v", a)
	}
	if st.Annotations()[serviceaccount.IssuedCredentialIDAuditAnnotation] == "" {
		t.Errorf("no issued credential annotation: %v", st.Annotations())
	}

	denied := &request.State{User: &user.DefaultInfo{Name: "mallory"}}
	if _, err := h.Create(request.WithState(ctx, denied), "ns", "sa", &authenticationv1.TokenRequest{}, nil); !apierrors.IsForbidden(err) {
		t.Errorf("denied request: %v, want Forbidden", err)
	}
	if len(denied.Annotations()) != 0 {
		t.Errorf("a denied request recorded %v", denied.Annotations())
	}
	if _, err := h.Create(ctx, "ns", "sa", &corev1.Pod{}, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("a body that is not a TokenRequest: %v, want BadRequest", err)
	}
	if _, err := New(requests, nil); err == nil {
		t.Error("New without a chain succeeded")
	}
}
