package reviews

import (
	"context"
	"fmt"
	"sort"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/request"
)

// Access answers the access reviews of authorization.k8s.io with the
// server's authorizer chain, so `kubectl auth can-i` tells the truth.
type Access struct {
	// Authorizer is the chain requests are authorized with.
	Authorizer func() authorizer.UnconditionalAuthorizer
	// Rules lists a user's rules for SelfSubjectRulesReview.
	Rules func() authorizer.RuleResolver
}

var (
	// kube-apiserver names the kind of the decoded review, whose TypeMeta
	// is empty by then: its refusals say `.authorization.k8s.io "" is invalid`.
	sarKind  = schema.GroupKind{Group: authorizationv1.GroupName}
	lsarKind = schema.GroupKind{Group: authorizationv1.GroupName}
	ssarKind = schema.GroupKind{Group: authorizationv1.GroupName}
)

// SubjectAccessReview answers for the user named in the spec.
func (a Access) SubjectAccessReview(ctx context.Context, obj runtime.Object, _ bool) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %T", obj))
	}
	if errs := validateSpec(r.Spec, field.NewPath("spec")); len(errs) > 0 {
		return nil, apierrors.NewInvalid(sarKind, "", errs)
	}
	r.Status = a.decide(ctx, specAttributes(r.Spec, specUser(r.Spec)))
	return r, nil
}

// LocalSubjectAccessReview answers within the request's namespace.
func (a Access) LocalSubjectAccessReview(ctx context.Context, obj runtime.Object, _ bool) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocalSubjectAccessReview: %T", obj))
	}
	ns := ""
	if st := request.StateFrom(ctx); st != nil && st.Info != nil {
		ns = st.Info.Namespace
	}
	errs := validateSpec(r.Spec, field.NewPath("spec"))
	if r.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "nonResourceAttributes"), r.Spec.NonResourceAttributes, "disallowed on this kind of request"))
	}
	if ra := r.Spec.ResourceAttributes; ra != nil && ra.Namespace != ns {
		errs = append(errs, field.Invalid(field.NewPath("spec", "resourceAttributes", "namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if r.Namespace != "" && r.Namespace != ns {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), r.Namespace, "must match the namespace of the request"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(lsarKind, "", errs)
	}
	r.Namespace = ns
	r.Status = a.decide(ctx, specAttributes(r.Spec, specUser(r.Spec)))
	return r, nil
}

// SelfSubjectAccessReview answers for the requesting user.
func (a Access) SelfSubjectAccessReview(ctx context.Context, obj runtime.Object, _ bool) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", obj))
	}
	spec := authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: r.Spec.ResourceAttributes, NonResourceAttributes: r.Spec.NonResourceAttributes}
	if errs := validateAttributes(spec, field.NewPath("spec")); len(errs) > 0 {
		return nil, apierrors.NewInvalid(ssarKind, "", errs)
	}
	r.Status = a.decide(ctx, specAttributes(spec, requester(ctx)))
	return r, nil
}

// SelfSubjectRulesReview lists what the requester may do in a namespace.
func (a Access) SelfSubjectRulesReview(ctx context.Context, obj runtime.Object, _ bool) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", obj))
	}
	if r.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	resRules, nonResRules, incomplete, err := a.Rules().RulesFor(ctx, requester(ctx), r.Spec.Namespace)
	// kube-apiserver answers with a new object holding only the status.
	r = &authorizationv1.SelfSubjectRulesReview{}
	r.Status = authorizationv1.SubjectRulesReviewStatus{Incomplete: incomplete}
	if err != nil {
		r.Status.EvaluationError = err.Error()
	}
	for _, rule := range resRules {
		r.Status.ResourceRules = append(r.Status.ResourceRules, authorizationv1.ResourceRule{
			Verbs: rule.GetVerbs(), APIGroups: rule.GetAPIGroups(), Resources: rule.GetResources(), ResourceNames: rule.GetResourceNames()})
	}
	for _, rule := range nonResRules {
		r.Status.NonResourceRules = append(r.Status.NonResourceRules, authorizationv1.NonResourceRule{
			Verbs: rule.GetVerbs(), NonResourceURLs: rule.GetNonResourceURLs()})
	}
	return r, nil
}

func (a Access) decide(ctx context.Context, attrs authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := a.Authorizer().Authorize(ctx, attrs)
	st := authorizationv1.SubjectAccessReviewStatus{
		Allowed: d == authorizer.DecisionAllow,
		Denied:  d == authorizer.DecisionDeny,
		Reason:  reason,
	}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

func requester(ctx context.Context) user.Info {
	if st := request.StateFrom(ctx); st != nil && st.User != nil {
		return st.User
	}
	return &user.DefaultInfo{}
}

func specUser(s authorizationv1.SubjectAccessReviewSpec) user.Info {
	extra := map[string][]string{}
	for k, v := range s.Extra {
		extra[k] = v
	}
	return &user.DefaultInfo{Name: s.User, UID: s.UID, Groups: s.Groups, Extra: extra}
}

func specAttributes(s authorizationv1.SubjectAccessReviewSpec, u user.Info) authorizer.AttributesRecord {
	if ra := s.ResourceAttributes; ra != nil {
		// An empty version is every version, as kube-apiserver reads it
		// (authorizers and webhooks see "*").
		version := ra.Version
		if version == "" {
			version = "*"
		}
		a := authorizer.AttributesRecord{User: u, Verb: ra.Verb, Namespace: ra.Namespace, APIGroup: ra.Group, APIVersion: version,
			Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name, ResourceRequest: true}
		withSelectors(&a, ra)
		return a
	}
	nra := s.NonResourceAttributes
	return authorizer.AttributesRecord{User: u, Verb: nra.Verb, Path: nra.Path}
}

func validateAttributes(s authorizationv1.SubjectAccessReviewSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.ResourceAttributes != nil && s.NonResourceAttributes != nil:
		errs = append(errs, field.Invalid(p.Child("nonResourceAttributes"), s.NonResourceAttributes, `cannot be specified in combination with resourceAttributes`))
	case s.ResourceAttributes == nil && s.NonResourceAttributes == nil:
		errs = append(errs, field.Invalid(p.Child("resourceAttributes"), s.NonResourceAttributes, `exactly one of nonResourceAttributes or resourceAttributes must be specified`))
	}
	return errs
}

func validateSpec(s authorizationv1.SubjectAccessReviewSpec, p *field.Path) field.ErrorList {
	errs := validateAttributes(s, p)
	if s.User == "" && len(s.Groups) == 0 {
		errs = append(errs, field.Invalid(p.Child("user"), s.User, `at least one of user or group must be specified`))
	}
	return errs
}

// SuperuserRules resolves system:masters to every rule, and everyone else
// through next, as kube-apiserver's privileged-group rule resolver does.
type SuperuserRules struct{ Next authorizer.RuleResolver }

// RulesFor implements authorizer.RuleResolver.
func (s SuperuserRules) RulesFor(ctx context.Context, u user.Info, ns string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
				[]authorizer.NonResourceRuleInfo{&authorizer.DefaultNonResourceRuleInfo{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}, false, nil
		}
	}
	if s.Next == nil {
		return nil, nil, true, nil
	}
	return s.Next.RulesFor(ctx, u, ns)
}

// UnionRules merges the rules of several resolvers; any incomplete one
// makes the answer incomplete.
type UnionRules []authorizer.RuleResolver

// RulesFor implements authorizer.RuleResolver.
func (u UnionRules) RulesFor(ctx context.Context, usr user.Info, ns string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var res []authorizer.ResourceRuleInfo
	var nonRes []authorizer.NonResourceRuleInfo
	incomplete := false
	var msgs []string
	for _, r := range u {
		a, b, inc, err := r.RulesFor(ctx, usr, ns)
		res = append(res, a...)
		nonRes = append(nonRes, b...)
		incomplete = incomplete || inc
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	sort.Strings(msgs)
	if len(msgs) > 0 {
		return res, nonRes, incomplete, fmt.Errorf("%s", strings.Join(msgs, ", "))
	}
	return res, nonRes, incomplete, nil
}
