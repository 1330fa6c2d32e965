package reviews

import (
	"context"
	"net/http/httptest"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/request"
)

// onlyPodsInDev allows get/list of pods in namespace dev, for user dev1 and group devs.
var onlyPodsInDev = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	member := a.GetUser().GetName() == "dev1"
	for _, g := range a.GetUser().GetGroups() {
		member = member || g == "devs"
	}
	if member && a.GetResource() == "pods" && a.GetNamespace() == "dev" {
		return authorizer.DecisionAllow, "dev pods", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
})

func access() Access {
	return Access{
		Authorizer: func() authorizer.UnconditionalAuthorizer { return onlyPodsInDev },
		Rules:      func() authorizer.RuleResolver { return SuperuserRules{} },
	}
}

func ctxFor(u user.Info, path string) context.Context {
	r := httptest.NewRequest("POST", path, nil)
	return request.WithState(context.Background(), &request.State{Info: request.Parse(r), User: u})
}

func TestAccessReviews(t *testing.T) {
	pods := func(ns string) *authorizationv1.ResourceAttributes {
		return &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "pods"}
	}
	a := access()
	ctx := ctxFor(&user.DefaultInfo{Name: "dev1"}, "/apis/authorization.k8s.io/v1/namespaces/dev/localsubjectaccessreviews")

	out, err := a.SubjectAccessReview(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "x", Groups: []string{"devs"}, ResourceAttributes: pods("dev")}}, false)
	if err != nil || !out.(*authorizationv1.SubjectAccessReview).Status.Allowed {
		t.Errorf("SAR for a devs member: %v %+v", err, out)
	}
	out, _ = a.SubjectAccessReview(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "x", ResourceAttributes: pods("prod")}}, false)
	if out.(*authorizationv1.SubjectAccessReview).Status.Allowed {
		t.Error("SAR allowed prod")
	}
	if _, err := a.SubjectAccessReview(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: pods("dev")}}, false); !apierrors.IsInvalid(err) {
		t.Errorf("SAR without a user: %v", err)
	}
	out, err = a.SelfSubjectAccessReview(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: pods("dev")}}, false)
	if err != nil || !out.(*authorizationv1.SelfSubjectAccessReview).Status.Allowed {
		t.Errorf("SSAR: %v %+v", err, out)
	}
	out, err = a.LocalSubjectAccessReview(ctx, &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "dev1", ResourceAttributes: pods("dev")}}, false)
	if err != nil || !out.(*authorizationv1.LocalSubjectAccessReview).Status.Allowed {
		t.Errorf("LSAR: %v %+v", err, out)
	}
	if _, err := a.LocalSubjectAccessReview(ctx, &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "dev1", ResourceAttributes: pods("prod")}}, false); !apierrors.IsInvalid(err) {
		t.Errorf("LSAR for another namespace: %v", err)
	}
	out, err = a.SelfSubjectRulesReview(ctxFor(&user.DefaultInfo{Name: "root", Groups: []string{"system:masters"}}, "/"),
		&authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "dev"}}, false)
	if err != nil || len(out.(*authorizationv1.SelfSubjectRulesReview).Status.ResourceRules) != 1 {
		t.Errorf("SSRR for a superuser: %v %+v", err, out)
	}
}
